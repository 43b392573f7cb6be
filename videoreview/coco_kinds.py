"""What each COCO label (the object detectors' 80 classes, COCO_LABELS in
engines/objects/decode.py) means in WordNet 3.0, and where that is in the hierarchy the app
ships (resources/imagenet_hierarchy.tsv, read by taxonomy.py), so the library can say what a
detected object is a kind of: a search for "vehicle" finds a car, "animal" a dog,
"furniture" a chair, "food" a pizza.

COCO's labels are not ImageNet classes, and the hierarchy holds only the synsets at and
above the 1000 ImageNet classes. Most COCO labels are there (a class, or a category above
classes: car, dog, chair, pizza); for the rest the table names the synset the label means
and files it under its nearest hypernyms that are there (the giraffe under "ruminant", the
cup under "crockery" and "container"). A label whose nearest hypernym there is too general
to say ("artifact") is deliberately unmapped (UNMAPPED), and says only its words.

Each row: ``synset``, the WordNet 3.0 noun synset the label means ("" for "stop sign",
which WordNet 3.0 lacks); ``under``, the hierarchy's synsets it is filed under (None: the
synset itself is there; () for an unmapped label); ``words``, more names a search may use
(WordNet's other names for it, or its hypernyms that the hierarchy lacks).
"""

from __future__ import annotations

from typing import NamedTuple


class CocoKind(NamedTuple):
    synset: str
    under: tuple[str, ...] | None = None
    words: tuple[str, ...] = ()

    def synsets(self) -> tuple[str, ...]:
        """The hierarchy's synsets the label is filed under (none for an unmapped one)."""
        return (self.synset,) if self.under is None else self.under


# Labels whose nearest hypernym in the hierarchy is too general to say, with the reason.
UNMAPPED: dict[str, str] = {
    "fire hydrant": "hydrant, discharge pipe, pipe, ... way: only 'artifact' is in the hierarchy",
    "toilet": "plumbing fixture, fixture: only 'artifact' is in the hierarchy",
    "sink": "plumbing fixture, fixture: only 'artifact' is in the hierarchy",
}

COCO_KINDS: dict[str, CocoKind] = {
    "person": CocoKind("n00007846", words=("people", "human")),
    "bicycle": CocoKind("n02834778"),
    "car": CocoKind("n02958343"),  # the automobile, not the railway car
    "motorcycle": CocoKind("n03790512"),
    "airplane": CocoKind("n02691156"),
    # WordNet files these under public transport, not vehicle: a user says "vehicle"
    "bus": CocoKind("n02924116", words=("vehicle",)),
    "train": CocoKind("n04468005", words=("vehicle",)),
    "truck": CocoKind("n04490091"),
    "boat": CocoKind("n02858304"),
    "traffic light": CocoKind("n06874185"),
    "fire hydrant": CocoKind("n03346898", (), ("hydrant", "fireplug")),
    "stop sign": CocoKind("", ("n06794110",)),  # not in WordNet 3.0: a street sign
    "parking meter": CocoKind("n03891332"),
    "bench": CocoKind("n02828884"),
    "bird": CocoKind("n01503061"),
    "cat": CocoKind("n02121620"),
    "dog": CocoKind("n02084071"),
    "horse": CocoKind("n02374451"),
    "sheep": CocoKind("n02411705"),
    "cow": CocoKind("n02403454", ("n02402425",)),  # cattle
    "elephant": CocoKind("n02503517"),
    "bear": CocoKind("n02131653"),
    "zebra": CocoKind("n02391049"),
    "giraffe": CocoKind("n02439033", ("n02399000",)),  # ruminant
    "backpack": CocoKind("n02769748"),
    "umbrella": CocoKind("n04507155"),
    "handbag": CocoKind("n02774152", ("n03094503",), ("bag", "purse")),  # container
    "tie": CocoKind("n03815615"),  # necktie
    "suitcase": CocoKind("n02773838", ("n02974697",), ("luggage", "baggage")),  # case
    "frisbee": CocoKind("n03397947", ("n03964744",)),  # plaything (its other hypernym, disk, says "mechanism")
    "skis": CocoKind("n04228054"),  # ski
    "snowboard": CocoKind("n04251791", ("n02856463",)),  # board
    "sports ball": CocoKind("n02778669"),  # ball (game equipment)
    "kite": CocoKind("n03621473", ("n03964744",)),  # the toy (plaything), not the hawk
    "baseball bat": CocoKind("n02799175", ("n02799897",), ("bat",)),  # baseball equipment
    "baseball glove": CocoKind("n02800213", ("n02799897",), ("glove", "mitt")),
    "skateboard": CocoKind("n04225987", ("n02856463", "n04576211")),  # board, wheeled vehicle
    "surfboard": CocoKind("n04363559", ("n02856463",)),
    "tennis racket": CocoKind("n04409806", ("n04039381",)),  # racket
    "bottle": CocoKind("n02876657"),
    "wine glass": CocoKind("n04592099", ("n03438257",), ("wineglass",)),  # glass
    "cup": CocoKind("n03147509", ("n03133538", "n03094503")),  # crockery, container (not the punch)
    "fork": CocoKind("n03383948", ("n03153375",)),  # cutlery
    "knife": CocoKind("n03623556"),
    "spoon": CocoKind("n04284002"),
    "bowl": CocoKind("n02880940"),  # the dish for serving food
    "banana": CocoKind("n07753592"),  # the fruit, not the plant
    "apple": CocoKind("n07739125"),
    "sandwich": CocoKind("n07695965"),
    "orange": CocoKind("n07747607"),
    "broccoli": CocoKind("n07714990"),  # the vegetable, not the plant
    "carrot": CocoKind("n07730207", ("n07710283",)),  # root vegetable
    "hot dog": CocoKind("n07697537"),  # hotdog (the frankfurter on a bun)
    "pizza": CocoKind("n07873807"),
    "donut": CocoKind("n07639069", ("n07622061",), ("doughnut", "friedcake", "cake")),  # baked goods
    "cake": CocoKind("n07628870", ("n07622061",)),  # baked goods
    "chair": CocoKind("n03001627"),
    "couch": CocoKind("n04256520"),  # sofa
    "potted plant": CocoKind("n11536230", ("n00017222",), ("pot plant", "houseplant")),  # plant
    "bed": CocoKind("n02818832"),
    "dining table": CocoKind("n03201208"),
    "toilet": CocoKind("n04446521", (), ("plumbing fixture",)),
    "tv": CocoKind("n04405907", ("n03278248",), ("television", "television set")),  # electronic equipment
    "laptop": CocoKind("n03642806"),
    "mouse": CocoKind("n03793489"),  # the computer mouse
    "remote": CocoKind("n04074963"),  # remote control
    "keyboard": CocoKind("n03614007"),
    "cell phone": CocoKind("n02992529", words=("mobile phone", "phone")),  # cellular telephone
    "microwave": CocoKind("n03761084"),  # the oven
    "oven": CocoKind("n03862676"),
    "toaster": CocoKind("n04442312"),  # the appliance
    "sink": CocoKind("n04223580", (), ("plumbing fixture",)),
    "refrigerator": CocoKind("n04070727"),
    "book": CocoKind("n02870092", ("n04007894",), ("volume",)),  # product
    "clock": CocoKind("n03046257"),
    "vase": CocoKind("n04522168"),
    "scissors": CocoKind("n04148054", ("n03265032",)),  # edge tool
    "teddy bear": CocoKind("n04399382"),  # teddy
    "hair drier": CocoKind("n03483316", words=("hair dryer",)),  # hand blower
    "toothbrush": CocoKind("n04453156", ("n02908217", "n04447443")),  # brush, toiletry
}
