"""Whisper base as a Hugging Face transformers model, made from the weights the app ships.

    .venv/bin/python benchmarks/whisper_to_transformers.py

bench_speech.py compares our transcription with transformers' Whisper pipeline, the
other choice a user has. There is no transformers-format Whisper base offline here (no
hub access), so this makes one from our builtin whisper-base: the CTranslate2 model.bin
(float16) is parsed and its variables are mapped back to WhisperForConditionalGeneration's
names (the inverse of CTranslate2's WhisperLoader), in float32, with the config,
generation config, tokenizer and feature extractor openai/whisper-base has. Both sides
of the benchmark then run the very same weights, not two releases of "Whisper base".

Run as a script it converts into a temporary folder, checks the encoder's output against
CTranslate2's (float32) on the same features, and transcribes a short espeak-ng sentence
with transformers' pipeline and with faster-whisper (int8 as the app runs it, and
float32), to show they agree.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

# CTranslate2's DataType enum (include/ctranslate2/types.h).
DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}

# openai/whisper-base's shape.
LAYERS, HEADS, D_MODEL, FFN = 6, 8, 512, 2048


def read_ctranslate2(data: bytes) -> dict[str, np.ndarray]:
    """The variables of a CTranslate2 model.bin (binary version 6), aliases resolved."""
    at = 0

    def take(fmt: str):
        nonlocal at
        values = struct.unpack_from("<" + fmt, data, at)
        at += struct.calcsize("<" + fmt)
        return values[0]

    def string() -> str:
        nonlocal at
        length = take("H")  # counts the trailing NUL
        text = data[at:at + length]
        at += length
        assert text[-1:] == b"\0", "model.bin: a string without its NUL"
        return text[:-1].decode()

    version = take("I")
    if version != 6:
        raise ValueError(f"model.bin: binary version {version}, this reads 6")
    if (spec := string()) != "WhisperSpec":
        raise ValueError(f"model.bin: a {spec}, not a WhisperSpec")
    take("I")  # spec revision
    variables = {}
    for _ in range(take("I")):
        name = string()
        shape = [take("I") for _ in range(take("B"))]
        dtype = np.dtype(DTYPES[take("B")])
        size = take("I")
        if size != dtype.itemsize * int(np.prod(shape)):
            raise ValueError(f"model.bin: {name} is {size} bytes, not {shape} of {dtype}")
        variables[name] = np.frombuffer(data, dtype, int(np.prod(shape)), at).reshape(shape)
        at += size
    for _ in range(take("I")):
        alias, target = string(), string()
        variables[alias] = variables[target]
    if at != len(data):
        raise ValueError(f"model.bin: {len(data) - at} bytes left after the aliases")
    return variables


def state_dict(variables: dict[str, np.ndarray]) -> dict:
    """WhisperForConditionalGeneration's tensors (float32) from CTranslate2's variables."""
    import torch

    out = {}

    def put(name: str, value: np.ndarray) -> None:
        out[name] = torch.from_numpy(np.ascontiguousarray(value, dtype=np.float32))

    def linear(name: str, spec: str, bias: bool = True) -> None:
        put(f"{name}.weight", variables[f"{spec}/weight"])
        if bias:
            put(f"{name}.bias", variables[f"{spec}/bias"])

    def norm(name: str, spec: str) -> None:
        put(f"{name}.weight", variables[f"{spec}/gamma"])
        put(f"{name}.bias", variables[f"{spec}/beta"])

    def projections(name: str, spec: str, which: str) -> None:
        """q, k, v from CTranslate2's fused linear (rows stacked q, k, v). Whisper's k_proj
        has no bias: the converter filled zeros there, so check that and drop them."""
        weight, bias = variables[f"{spec}/weight"], variables[f"{spec}/bias"]
        rows = weight.shape[0] // len(which)
        for k, part in enumerate(which):
            put(f"{name}.{part}_proj.weight", weight[k * rows:(k + 1) * rows])
            if part == "k":
                assert not bias[k * rows:(k + 1) * rows].any(), f"{spec}: k has a bias"
            else:
                put(f"{name}.{part}_proj.bias", bias[k * rows:(k + 1) * rows])

    def ffn(name: str, spec: str) -> None:
        linear(f"{name}.fc1", f"{spec}/ffn/linear_0")
        linear(f"{name}.fc2", f"{spec}/ffn/linear_1")
        norm(f"{name}.final_layer_norm", f"{spec}/ffn/layer_norm")

    for side in ("encoder", "decoder"):
        put(f"model.{side}.embed_positions.weight", variables[f"{side}/position_encodings/encodings"])
        norm(f"model.{side}.layer_norm", f"{side}/layer_norm")
        for i in range(LAYERS):
            name, spec = f"model.{side}.layers.{i}", f"{side}/layer_{i}"
            projections(f"{name}.self_attn", f"{spec}/self_attention/linear_0", "qkv")
            linear(f"{name}.self_attn.out_proj", f"{spec}/self_attention/linear_1")
            norm(f"{name}.self_attn_layer_norm", f"{spec}/self_attention/layer_norm")
            if side == "decoder":  # cross-attention: q alone, then k and v fused
                projections(f"{name}.encoder_attn", f"{spec}/attention/linear_0", "q")
                projections(f"{name}.encoder_attn", f"{spec}/attention/linear_1", "kv")
                linear(f"{name}.encoder_attn.out_proj", f"{spec}/attention/linear_2")
                norm(f"{name}.encoder_attn_layer_norm", f"{spec}/attention/layer_norm")
            ffn(name, spec)
    linear("model.encoder.conv1", "encoder/conv1")
    linear("model.encoder.conv2", "encoder/conv2")
    put("model.decoder.embed_tokens.weight", variables["decoder/embeddings/weight"])
    put("proj_out.weight", variables["decoder/projection/weight"])  # an alias of the embeddings: tied
    return out


def convert(folder: Path) -> Path:
    """Writes whisper-base as a transformers WhisperForConditionalGeneration folder; returns it."""
    import torch
    from tokenizers import AddedToken, Tokenizer
    from transformers import (
        GenerationConfig,
        WhisperConfig,
        WhisperFeatureExtractor,
        WhisperForConditionalGeneration,
        WhisperTokenizer,
    )

    from videoreview.engines.speech.whisper import builtin_files
    from videoreview.models.catalog import load_catalog

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files = builtin_files(load_catalog()["whisper-base"])
    ct2 = json.loads(files["config.json"])
    variables = read_ctranslate2(files["model.bin"])
    vocab = variables["decoder/embeddings/weight"].shape[0]

    # The tokenizer: CTranslate2 ships the special tokens up to <|notimestamps|>; add the
    # timestamps <|0.00|> .. <|30.00|> after them (not special) as the hub's tokenizer has.
    tokenizer = Tokenizer.from_str(files["tokenizer.json"].decode())
    special = sorted((t for t in json.loads(files["tokenizer.json"])["added_tokens"] if t["special"]),
                     key=lambda t: t["id"])
    ids = {t["content"]: t["id"] for t in special}
    first = ids["<|notimestamps|>"] + 1
    tokenizer.add_tokens([AddedToken(f"<|{k * 0.02:.2f}|>", normalized=False) for k in range(vocab - first)])
    assert tokenizer.get_vocab_size() == vocab and tokenizer.token_to_id("<|30.00|>") == vocab - 1
    tokenizer.save(str(folder / "tokenizer.json"))
    WhisperTokenizer(tokenizer_file=str(folder / "tokenizer.json"), unk_token="<|endoftext|>",
                     bos_token="<|endoftext|>", eos_token="<|endoftext|>", pad_token="<|endoftext|>",
                     additional_special_tokens=[t["content"] for t in special],
                     model_max_length=1024).save_pretrained(folder)
    WhisperFeatureExtractor(feature_size=80, sampling_rate=16000).save_pretrained(folder)

    config = WhisperConfig(
        vocab_size=vocab, num_mel_bins=80, d_model=D_MODEL, encoder_layers=LAYERS, decoder_layers=LAYERS,
        encoder_attention_heads=HEADS, decoder_attention_heads=HEADS, encoder_ffn_dim=FFN, decoder_ffn_dim=FFN,
        max_source_positions=1500, max_target_positions=448, pad_token_id=ids["<|endoftext|>"],
        bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|endoftext|>"],
        decoder_start_token_id=ids["<|startoftranscript|>"], suppress_tokens=ct2["suppress_ids"],
        begin_suppress_tokens=ct2["suppress_ids_begin"], tie_word_embeddings=True)
    weights = state_dict(variables)
    assert tuple(weights["model.encoder.conv1.weight"].shape) == (D_MODEL, 80, 3)
    with torch.device("meta"):
        model = WhisperForConditionalGeneration(config)
    missing, unexpected = model.load_state_dict(weights, strict=False, assign=True)
    if missing or unexpected:
        raise ValueError(f"weights do not fit: missing {missing}, unexpected {unexpected}")
    model.tie_weights()
    names = {v: k for k, v in ids.items()}
    # task="transcribe" is what the hub's forced_decoder_ids [[1, None], [2, <|transcribe|>]]
    # say, in transformers' current words: the language is detected, then transcribed.
    # Without it the prompt lacks <|transcribe|> and base loops ("train train train ...").
    model.generation_config = GenerationConfig(
        task="transcribe",
        alignment_heads=ct2["alignment_heads"], begin_suppress_tokens=ct2["suppress_ids_begin"],
        suppress_tokens=ct2["suppress_ids"], bos_token_id=ids["<|endoftext|>"], eos_token_id=ids["<|endoftext|>"],
        pad_token_id=ids["<|endoftext|>"], decoder_start_token_id=ids["<|startoftranscript|>"],
        is_multilingual=True, lang_to_id={names[i]: i for i in ct2["lang_ids"]},
        task_to_id={"transcribe": ids["<|transcribe|>"], "translate": ids["<|translate|>"]},
        no_timestamps_token_id=ids["<|notimestamps|>"], prev_sot_token_id=ids["<|startofprev|>"],
        max_initial_timestamp_index=50, max_length=448)
    model.save_pretrained(folder)
    return folder


def compare_encoders(folder: Path) -> None:
    """The mapping is right if both encoders give the same output for the same features
    (CTranslate2 in float32 here, so only the float16 weights' rounding is shared)."""
    import ctranslate2
    import torch
    from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration

    from videoreview.engines.speech.whisper import builtin_files
    from videoreview.models.catalog import load_catalog

    noise = np.random.default_rng(0).normal(0, 0.1, 16000 * 5).astype(np.float32)
    features = WhisperFeatureExtractor.from_pretrained(folder)(noise, sampling_rate=16000,
                                                                 return_tensors="np").input_features
    ct2 = ctranslate2.models.Whisper("b", files=builtin_files(load_catalog()["whisper-base"]), compute_type="float32")
    theirs = np.array(ct2.encode(ctranslate2.StorageView.from_array(np.ascontiguousarray(features)), to_cpu=True))
    model = WhisperForConditionalGeneration.from_pretrained(folder).eval()
    with torch.no_grad():
        ours = model.model.encoder(torch.from_numpy(features)).last_hidden_state.numpy()
    diff = float(np.abs(theirs - ours).max())
    print(f"encoder output, CTranslate2 against transformers: max abs diff {diff:.2g} "
          f"(values up to {np.abs(theirs).max():.0f})")
    assert diff < 0.01, "the converted encoder differs from CTranslate2's"


def _check() -> None:
    import subprocess
    import tempfile

    from faster_whisper import WhisperModel
    from faster_whisper.audio import decode_audio
    from transformers import pipeline

    from videoreview.engines.speech.whisper import builtin_files
    from videoreview.models.catalog import load_catalog

    with tempfile.TemporaryDirectory(prefix="whisper-hf-") as temp:  # 290 MB of weights: not left behind
        work = Path(temp)
        folder = convert(work / "whisper-base")
        print("converted into", folder, sorted(p.name for p in folder.iterdir()))
        compare_encoders(folder)
        sentence = "Review the video and write notes about the train."
        subprocess.run(["espeak-ng", "-w", str(work / "out.wav"), sentence], check=True)
        samples = decode_audio(str(work / "out.wav"), sampling_rate=16000)  # mono float32 at 16 kHz
        print(f"spoken:                 {sentence!r} ({len(samples) / 16000:.1f} s)")
        pipe = pipeline("automatic-speech-recognition", model=str(folder), device="cpu")
        heard = pipe({"raw": samples, "sampling_rate": 16000}, generate_kwargs={"num_beams": 5})
        print(f"transformers float32:   {heard['text'].strip()!r}")
        words = pipe({"raw": samples, "sampling_rate": 16000}, return_timestamps="word", chunk_length_s=30,
                     batch_size=1, generate_kwargs={"num_beams": 5})
        print("  words:", [(c["text"].strip(), *c["timestamp"]) for c in words["chunks"]])
        # int8 as the app runs it; float32 as transformers runs it here
        for compute_type in ("int8", "float32"):
            model = WhisperModel("b", files=builtin_files(load_catalog()["whisper-base"]), compute_type=compute_type)
            segments, info = model.transcribe(samples, beam_size=5)
            print(f"faster-whisper {compute_type + ':':8} {' '.join(s.text.strip() for s in segments)!r} "
                  f"({info.language})")


if __name__ == "__main__":
    _check()
