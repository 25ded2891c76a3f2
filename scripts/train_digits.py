#!/usr/bin/python3
"""Trains the digit classifier `make demo` runs and writes every file of data/digits/.

    apt-get install -y python3-numpy python3-sklearn   # Debian 12; sklearn only ships the data
    /usr/bin/python3 scripts/train_digits.py           # writes data/digits/ (about 15 s of CPU)
    /usr/bin/python3 scripts/train_digits.py --out DIR # somewhere else (e.g. to compare)

Data: the UCI "Optical Recognition of Handwritten Digits" test set as Debian's
python3-sklearn ships it (sklearn/datasets/data/digits.csv.gz: 1,797 images of
8x8 pixels, values 0..16, label in the 65th column). The file is read with gzip
and csv; scikit-learn is not imported. A fixed permutation (numpy RandomState,
seed 16) puts 360 images into the held-out test split and 1,437 into training.

Model: image [1,1,8,8] (pixel / 16) -> Convolution 3x3, 8 channels, pad 1 ->
+bias -> ReLU -> Convolution 3x3, 16 channels, stride 2, pad 1 -> +bias -> ReLU
-> Reshape [0,-1] (256) -> MatMul [10,256] (transpose_b) -> +bias -> SoftMax.
Trained with plain numpy (float64, Adam, fixed seed, one BLAS thread so that
every run does the same arithmetic), then stored as f16.

Output (data/digits/):
  digits.xml, digits.bin  OpenVINO IR v11 as OpenVINO's converter (ovc) writes
                          it: f16 Consts, each followed by a Convert to f32 with
                          the `decompression` rt_info; tensor names on ports;
                          layout rt_info "[N,C,H,W]" on the input and "[N,C]"
                          on the output. Batch 1: npu_ir_set_batch gives it any
                          batch, and PLUGIN debatching runs it at batch 1.
  test_split.u8           the held-out images: 360 x 64 bytes, row-major, 0..16
  test_labels.u8          their labels: 360 bytes, 0..9
  test_predictions.u8     the class the model predicts for each of them (computed
                          here: f16 weights, float64 arithmetic): the NPU
                          should agree
  test/DK_splitIII.pgm    20 of them: digit D, K-th of that digit (0, 1), index
                          III in the split; binary PGM (P5, 8x8, maxval 16)
  expected.txt            for each PGM: its label and the class the model
                          predicts (computed here with the f16 weights)
The run prints the held-out accuracy of the float64 model and of the f16
weights. Running the script twice gives the same bytes (check: run it with
--out /tmp/a and --out /tmp/b and `cmp` the files); the numbers depend only on
numpy's float64 arithmetic, so another CPU or numpy build could differ in the
last bits, which f16 rounding hides in practice.
"""
import argparse
import csv
import gzip
import importlib.util
import os
import sys

os.environ["OPENBLAS_NUM_THREADS"] = "1"   # same summation order on every run
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"
import numpy as np  # noqa: E402

SEED = 16
N_TEST = 360
EPOCHS = 60
BATCH = 32
WEIGHT_DECAY = 1e-4
C1, C2, CLASSES = 8, 16, 10


def find_digits_csv():
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("train_digits: python3-sklearn is not installed (apt-get install python3-sklearn)")
    for d in spec.submodule_search_locations:
        p = os.path.join(d, "datasets", "data", "digits.csv.gz")
        if os.path.exists(p):
            return p
    sys.exit("train_digits: digits.csv.gz not found in the sklearn package")


def load(path):
    with gzip.open(path, "rt") as f:
        rows = [[int(float(v)) for v in r] for r in csv.reader(f) if r]
    a = np.array(rows, dtype=np.int64)
    assert a.shape == (1797, 65), a.shape
    return a[:, :64].astype(np.uint8), a[:, 64].astype(np.uint8)


# ---- the network in numpy (NCHW, float64) ---------------------------------
def im2col(x, stride):
    """x [B,C,H,W] -> patches [B, OH, OW, C*9] of 3x3 windows, padding 1."""
    b, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh, ow = (h - 1) // stride + 1, (w - 1) // stride + 1
    cols = np.empty((b, oh, ow, c, 3, 3), dtype=x.dtype)
    for ky in range(3):
        for kx in range(3):
            cols[:, :, :, :, ky, kx] = xp[:, :, ky:ky + stride * oh:stride, kx:kx + stride * ow:stride].transpose(0, 2, 3, 1)
    return cols.reshape(b, oh, ow, c * 9)


def col2im(dcols, shape, stride):
    b, c, h, w = shape
    oh, ow = dcols.shape[1], dcols.shape[2]
    d = dcols.reshape(b, oh, ow, c, 3, 3)
    dxp = np.zeros((b, c, h + 2, w + 2), dtype=dcols.dtype)
    for ky in range(3):
        for kx in range(3):
            dxp[:, :, ky:ky + stride * oh:stride, kx:kx + stride * ow:stride] += d[:, :, :, :, ky, kx].transpose(0, 3, 1, 2)
    return dxp[:, :, 1:-1, 1:-1]


def forward(p, x, keep=False):
    """x [B,1,8,8] -> logits [B,10] (and the intermediates for backprop)."""
    c1 = im2col(x, 1)                                            # [B,8,8,9]
    z1 = c1 @ p["w1"].reshape(C1, -1).T + p["b1"]                # [B,8,8,C1]
    a1 = np.maximum(z1, 0).transpose(0, 3, 1, 2)                 # [B,C1,8,8]
    c2 = im2col(a1, 2)                                           # [B,4,4,C1*9]
    z2 = c2 @ p["w2"].reshape(C2, -1).T + p["b2"]                # [B,4,4,C2]
    a2 = np.maximum(z2, 0).transpose(0, 3, 1, 2)                 # [B,C2,4,4]
    f = a2.reshape(len(x), -1)                                   # [B,256], NCHW order
    logits = f @ p["wf"].T + p["bf"]
    if keep:
        return logits, (c1, z1, a1, c2, z2, f)
    return logits


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def backward(p, x, y, cache, logits):
    c1, z1, a1, c2, z2, f = cache
    b = len(x)
    dl = softmax(logits)
    dl[np.arange(b), y] -= 1
    dl /= b
    g = {"wf": dl.T @ f, "bf": dl.sum(0)}
    da2 = (dl @ p["wf"]).reshape(b, C2, 4, 4).transpose(0, 2, 3, 1)   # [B,4,4,C2]
    dz2 = da2 * (z2 > 0)
    g["w2"] = (dz2.reshape(-1, C2).T @ c2.reshape(-1, C1 * 9)).reshape(p["w2"].shape)
    g["b2"] = dz2.reshape(-1, C2).sum(0)
    dc2 = dz2 @ p["w2"].reshape(C2, -1)                          # [B,4,4,C1*9]
    da1 = col2im(dc2, a1.shape, 2).transpose(0, 2, 3, 1)          # [B,8,8,C1]
    dz1 = da1 * (z1 > 0)
    g["w1"] = (dz1.reshape(-1, C1).T @ c1.reshape(-1, 9)).reshape(p["w1"].shape)
    g["b1"] = dz1.reshape(-1, C1).sum(0)
    return g


def shift(x, rng):
    """Augmentation: each image moved by -1, 0 or 1 pixel in each direction."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.empty_like(x)
    for j, (dy, dx) in enumerate(rng.randint(0, 3, size=(len(x), 2))):
        out[j] = xp[j, :, dy:dy + 8, dx:dx + 8]
    return out


def train(xtr, ytr, rng):
    def he(shape, fan_in):
        return rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
    p = {"w1": he((C1, 1, 3, 3), 9), "b1": np.zeros(C1),
         "w2": he((C2, C1, 3, 3), C1 * 9), "b2": np.zeros(C2),
         "wf": he((CLASSES, C2 * 16), C2 * 16) * 0.5, "bf": np.zeros(CLASSES)}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    step = 0
    for epoch in range(EPOCHS):
        lr = 0.01 * (0.5 * (1 + np.cos(np.pi * epoch / EPOCHS)))  # cosine decay
        order = rng.permutation(len(xtr))
        for i in range(0, len(xtr), BATCH):
            idx = order[i:i + BATCH]
            xb = shift(xtr[idx], rng)
            logits, cache = forward(p, xb, keep=True)
            g = backward(p, xb, ytr[idx], cache, logits)
            step += 1
            for k in p:
                g[k] = g[k] + WEIGHT_DECAY * p[k] * (k[0] == "w")   # small weight decay
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k]
                mh, vh = m[k] / (1 - 0.9 ** step), v[k] / (1 - 0.999 ** step)
                p[k] -= lr * mh / (np.sqrt(vh) + 1e-8)
    return p


# ---- the IR, written the way ovc writes one --------------------------------
PREC = {"f32": "FP32", "f16": "FP16", "i64": "I64"}


class IR:
    def __init__(self):
        self.layers, self.edges, self.bin = [], [], bytearray()

    def layer(self, name, type_, data, ins, outs, version="opset1", rt=None):
        """ins: list of (layer id, port id, precision, dims, rt);  outs: list of
        (precision, dims, names, rt). Returns [(id, port)] of the outputs."""
        lid = len(self.layers)
        self.layers.append((lid, name, type_, version, data, ins, outs, rt))
        for port, (src, sport, *_rest) in enumerate(ins):
            self.edges.append((src, sport, lid, port))
        return [(lid, len(ins) + k) for k in range(len(outs))]

    def const(self, name, arr, etype):
        raw = arr.astype({"f16": "<f2", "i64": "<i8"}[etype]).tobytes()
        off = len(self.bin)
        self.bin += raw
        shape = ", ".join(str(d) for d in arr.shape)
        data = [("element_type", etype), ("shape", shape), ("offset", str(off)), ("size", str(len(raw)))]
        return self.layer(name, "Const", data, [], [(PREC[etype], arr.shape, None, None)])[0]

    def weight(self, name, arr):
        """f16 Const + Convert to f32 marked as decompression (ovc's compress_to_fp16)."""
        c = self.const(name + "_compressed", arr, "f16")
        return self.layer(name, "Convert", [("destination_type", "f32")], [c + ("FP16", arr.shape)],
                          [("FP32", arr.shape, None, None)],
                          rt='<attribute name="decompression" version="0" />')[0]

    def xml(self, net_name):
        dims = {}
        for lid, _n, _t, _v, _d, ins, outs, _rt in self.layers:
            for k, o in enumerate(outs):
                dims[(lid, len(ins) + k)] = o
        o = ['<?xml version="1.0"?>', f'<net name="{net_name}" version="11">', "\t<layers>"]
        for lid, name, type_, version, data, ins, outs, rt in self.layers:
            o.append(f'\t\t<layer id="{lid}" name="{name}" type="{type_}" version="{version}">')
            if data is not None:
                o.append("\t\t\t<data " + " ".join(f'{k}="{v}"' for k, v in data) + " />")
            if rt:
                o += ["\t\t\t<rt_info>", "\t\t\t\t" + rt, "\t\t\t</rt_info>"]
            if ins:
                o.append("\t\t\t<input>")
                for port, (src, sport, prec, shape, *prt) in enumerate(ins):
                    o += port_xml(port, prec, shape, None, prt[0] if prt else None)
                o.append("\t\t\t</input>")
            if outs:
                o.append("\t\t\t<output>")
                for k, (prec, shape, names, prt) in enumerate(outs):
                    o += port_xml(len(ins) + k, prec, shape, names, prt)
                o.append("\t\t\t</output>")
            o.append("\t\t</layer>")
        o.append("\t</layers>")
        o.append("\t<edges>")
        for s, sp, d, dp in self.edges:
            o.append(f'\t\t<edge from-layer="{s}" from-port="{sp}" to-layer="{d}" to-port="{dp}" />')
        o.append("\t</edges>")
        # ovc records Runtime_version here too; this file was not written by
        # OpenVINO, so it names its writer instead of an OpenVINO release.
        o += ["\t<rt_info>", "\t\t<conversion_parameters>",
              '\t\t\t<framework value="numpy (scripts/train_digits.py)" />', "\t\t</conversion_parameters>",
              "\t</rt_info>", "</net>"]
        return "\n".join(o) + "\n"


def port_xml(pid, prec, shape, names, rt):
    n = f' names="{names}"' if names else ""
    o = [f'\t\t\t\t<port id="{pid}" precision="{prec}"{n}>'] + [f"\t\t\t\t\t<dim>{d}</dim>" for d in shape]
    if rt:
        o += ["\t\t\t\t\t<rt_info>", "\t\t\t\t\t\t" + rt, "\t\t\t\t\t</rt_info>"]
    return o + ["\t\t\t\t</port>"]


def layout_rt(letters):
    return f'<attribute name="layout" version="0" layout="[{",".join(letters)}]" />'


def build_ir(p):
    ir = IR()
    x = ir.layer("image", "Parameter", [("shape", "1,1,8,8"), ("element_type", "f32")], [],
                 [("FP32", (1, 1, 8, 8), "image", layout_rt("NCHW"))])[0]
    explicit1 = [("strides", "1, 1"), ("dilations", "1, 1"), ("pads_begin", "1, 1"), ("pads_end", "1, 1"),
                 ("auto_pad", "explicit")]
    explicit2 = [("strides", "2, 2")] + explicit1[1:]

    def conv_block(src, src_shape, w, b, name, attrs, out_shape):
        wc = ir.weight(f"{name}.weight", w)
        c = ir.layer(f"{name}/Convolution", "Convolution", attrs,
                     [src + ("FP32", src_shape), wc + ("FP32", w.shape)], [("FP32", out_shape, None, None)])[0]
        bc = ir.weight(f"{name}.bias", b.reshape(1, -1, 1, 1))
        a = ir.layer(f"{name}/Add", "Add", [("auto_broadcast", "numpy")],
                     [c + ("FP32", out_shape), bc + ("FP32", (1, len(b), 1, 1))], [("FP32", out_shape, None, None)])[0]
        return ir.layer(f"{name}/Relu", "Relu", None, [a + ("FP32", out_shape)],
                        [("FP32", out_shape, f"{name}.out", None)])[0]

    s1, s2 = (1, C1, 8, 8), (1, C2, 4, 4)
    h = conv_block(x, (1, 1, 8, 8), p["w1"], p["b1"], "conv1", explicit1, s1)
    h = conv_block(h, s1, p["w2"], p["b2"], "conv2", explicit2, s2)
    t = ir.const("flatten/shape", np.array([0, -1]), "i64")
    h = ir.layer("flatten/Reshape", "Reshape", [("special_zero", "true")],
                 [h + ("FP32", s2), t + ("I64", (2,))], [("FP32", (1, C2 * 16), "flatten.out", None)])[0]
    wf = ir.weight("fc.weight", p["wf"])
    h = ir.layer("fc/MatMul", "MatMul", [("transpose_a", "false"), ("transpose_b", "true")],
                 [h + ("FP32", (1, C2 * 16)), wf + ("FP32", p["wf"].shape)], [("FP32", (1, CLASSES), None, None)])[0]
    bf = ir.weight("fc.bias", p["bf"].reshape(1, -1))
    h = ir.layer("fc/Add", "Add", [("auto_broadcast", "numpy")],
                 [h + ("FP32", (1, CLASSES)), bf + ("FP32", (1, CLASSES))], [("FP32", (1, CLASSES), "logits", None)])[0]
    h = ir.layer("probabilities/SoftMax", "SoftMax", [("axis", "1")], [h + ("FP32", (1, CLASSES))],
                 [("FP32", (1, CLASSES), "probabilities", None)], version="opset8")[0]
    ir.layer("probabilities/sink_port_0", "Result", None, [h + ("FP32", (1, CLASSES), layout_rt("NC"))], [])
    return ir.xml("digits"), bytes(ir.bin)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "digits"))
    ap.add_argument("--csv", help="digits.csv.gz (default: the one python3-sklearn ships)")
    args = ap.parse_args()

    pixels, labels = load(args.csv or find_digits_csv())
    rng = np.random.RandomState(SEED)
    order = rng.permutation(len(labels))
    te, tr = order[:N_TEST], order[N_TEST:]
    x = pixels.astype(np.float64).reshape(-1, 1, 8, 8) / 16.0

    p = train(x[tr], labels[tr].astype(np.int64), rng)
    acc64 = (forward(p, x[te]).argmax(1) == labels[te]).mean()
    p16 = {k: v.astype(np.float16).astype(np.float64) for k, v in p.items()}
    prob16 = softmax(forward(p16, x[te]))
    pred16 = prob16.argmax(1)
    acc16 = (pred16 == labels[te]).mean()
    train_acc = (forward(p16, x[tr]).argmax(1) == labels[tr]).mean()
    print(f"train_digits: {len(tr)} training images, {len(te)} held out; "
          f"held-out accuracy {acc64 * 100:.2f}% (float64), {acc16 * 100:.2f}% (f16 weights); "
          f"training accuracy {train_acc * 100:.2f}% (f16)")
    if acc16 < 0.95:
        sys.exit("train_digits: held-out accuracy below 95%")

    xml, weights = build_ir(p)
    out = args.out
    os.makedirs(os.path.join(out, "test"), exist_ok=True)

    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    write("digits.xml", xml.encode("ascii"))
    write("digits.bin", weights)
    write("test_split.u8", pixels[te].tobytes())
    write("test_labels.u8", labels[te].tobytes())
    write("test_predictions.u8", pred16.astype(np.uint8).tobytes())

    lines = ["# PGM image, its label, the class the model predicts (scripts/train_digits.py, f16 weights)"]
    for d in range(CLASSES):
        for k, i in enumerate(np.flatnonzero(labels[te] == d)[:2]):
            name = f"test/{d}{k}_split{i:03d}.pgm"
            write(name, b"P5\n8 8\n16\n" + pixels[te][i].tobytes())
            lines.append(f"{name} {d} {pred16[i]}")
    write("expected.txt", ("\n".join(lines) + "\n").encode("ascii"))
    print(f"train_digits: wrote {out}/digits.xml ({len(xml)} bytes), digits.bin ({len(weights)} bytes), "
          f"test_split.u8, test_labels.u8, test_predictions.u8, {len(lines) - 1} PGM images and expected.txt")


if __name__ == "__main__":
    main()
