#!/bin/sh
# Writes the weights file (.bin) of an OpenVINO IR whose .xml comes without one
# (tests/data/irl_*.xml), so that npu-run, ir_file and OpenVINO can load the
# pair:
#
#   sh scripts/ir-weights.sh model.xml model.bin
#
# Every Const gets deterministic values at its offset and size:
#   - f32, f16, bf16: ((7k + 3c) mod 17 - 8) / 16 for element k of the c-th
#     Const: small, exact in every float type, never NaN or infinite;
#   - i32, i64 feeding port 1 of a Reshape: the Reshape's output dimensions
#     (the target shape the .xml declares).
# Any other Const (an integer one elsewhere, an unknown type, a size that does
# not match its shape) is an error that names it: guessed axes or indices
# would give a model that loads but does not mean what its .xml says.
# Bytes no Const covers are zero. The .xml is read as ov::serialize writes it
# (one element per line); a TensorIterator or Loop body is a scope of its own.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 model.xml model.bin" >&2; exit 2; }
xml=$1
out=$2
[ -f "$xml" ] || { echo "ir-weights: $xml: no such file" >&2; exit 1; }

LC_ALL=C
export LC_ALL
bytes=$(awk -v file="$xml" '
function attr(line, name,    r) {
    if (match(line, " " name "=\"[^\"]*\"") == 0) return ""
    r = substr(line, RSTART + length(name) + 3, RLENGTH - length(name) - 4)
    return r
}
function die(msg) { printf "ir-weights: %s: %s\n", file, msg > "/dev/stderr"; failed = 1; exit 1 }
# IEEE 754 bits of v, a multiple of 1/16 below 1 in magnitude (exact in all three).
function fbits(v, mbits, ebias,    s, a, e) {
    if (v == 0) return 0
    s = v < 0; a = v < 0 ? -v : v; e = 0
    while (a >= 2) { a /= 2; e++ }
    while (a < 1) { a *= 2; e-- }
    return s * 2 ^ (mbits + (ebias == 127 ? 8 : 5)) + (e + ebias) * 2 ^ mbits + (a - 1) * 2 ^ mbits
}
function put(pos, value, n,    i, neg) {   # n little-endian bytes of an integer
    neg = value < 0
    if (neg) value += 2 ^ 32
    for (i = 0; i < n; i++) {
        byte[pos + i] = i < 4 ? value % 256 : (neg ? 255 : 0)
        value = int(value / 256)
    }
    if (pos + n > end) end = pos + n
}
function count(shape,    n, d, i, k) {
    gsub(/ /, "", shape)
    if (shape == "") return 1
    k = split(shape, d, ",")
    n = 1
    for (i = 1; i <= k; i++) n *= d[i]
    return n
}
BEGIN { scope = 0; scopes = 0; end = 0 }
/<body>/ { stack[++depth] = scope; scope = ++scopes }
/<\/body>/ { scope = stack[depth--] }
/<layer / {
    layer = scope ":" attr($0, "id"); ltype[layer] = attr($0, "type"); lname[layer] = attr($0, "name")
    inout = ""; dims[layer] = ""
}
/<output>/ { inout = "out" }
/<\/output>/ { inout = "" }
inout == "out" && /<dim>/ {
    dv = $0; gsub(/.*<dim>|<\/dim>.*/, "", dv)
    if (dims[layer] !~ /;$/) dims[layer] = dims[layer] (dims[layer] == "" ? "" : ",") dv
}
inout == "out" && /<\/port>/ { if (dims[layer] !~ /;$/) dims[layer] = dims[layer] ";" }
/<data / && ltype[layer] == "Const" {
    nconst++
    cid[nconst] = layer; ctype[nconst] = attr($0, "element_type"); cshape[nconst] = attr($0, "shape")
    coff[nconst] = attr($0, "offset"); csize[nconst] = attr($0, "size")
}
/<edge / {
    from = scope ":" attr($0, "from-layer"); to = scope ":" attr($0, "to-layer")
    consumer[from] = to; consumer_port[from] = attr($0, "to-port")
}
END {
    if (failed) exit 1
    for (c = 1; c <= nconst; c++) {
        l = cid[c]; t = ctype[c]; n = count(cshape[c]); off = coff[c] + 0
        w = t == "f32" || t == "i32" ? 4 : t == "f16" || t == "bf16" ? 2 : t == "i64" ? 8 : 0
        if (w == 0) die("Const \"" lname[l] "\": element type \"" t "\" is not one this script fills")
        if (n * w != csize[c]) die("Const \"" lname[l] "\": size " csize[c] " is not " n " x " w " bytes")
        if (t == "f32" || t == "f16" || t == "bf16") {
            for (k = 0; k < n; k++) {
                v = ((7 * k + 3 * c) % 17 - 8) / 16
                if (t == "f32") put(off + 4 * k, fbits(v, 23, 127), 4)
                else if (t == "f16") put(off + 2 * k, fbits(v, 10, 15), 2)
                else put(off + 2 * k, int(fbits(v, 23, 127) / 65536), 2)
            }
            continue
        }
        to = consumer[l]
        if (!(l in consumer) || ltype[to] != "Reshape" || consumer_port[l] != 1)
            die("integer Const \"" lname[l] "\" does not give a Reshape its shape: its values cannot be derived")
        target = dims[to]; sub(/;.*/, "", target)
        k = split(target, d, ",")
        if (k != n) die("Const \"" lname[l] "\": " n " values for a Reshape to rank " k)
        for (i = 1; i <= k; i++) put(off + w * (i - 1), d[i] + 0, w)
    }
    for (p = 0; p < end; p++) printf "\\%03o", (p in byte) ? byte[p] : 0
}' "$xml")
tmp=$out.tmp.$$
# shellcheck disable=SC2059
printf "$bytes" > "$tmp"
mv "$tmp" "$out"
