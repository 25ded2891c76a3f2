# stack-check.awk - worst-case stack of every public npu_* function, from the
# call graph and frame sizes gcc writes with -fcallgraph-info=su (a .ci file).
#
#   awk -v budget=4096 -v frame_max=1024 -v except=name=bytes,... -f stack-check.awk npu.ci
#
# Every public function's worst case is the largest sum of frames along any
# call path from it, within npu.c. Calls into libc or the Level Zero driver
# count as zero (the driver's own use is not ours). A call through a function
# pointer inside npu.c (op tables, sinks) is charged the worst case of every
# npu.c function whose address may be taken (defined but never called
# directly). Recursion is an error: the bound would not exist.
#
# Fails (exit 1) when a public function's worst case is above `budget`, when a
# frame is above `frame_max`, or when a frame is "dynamic" without "bounded".
# Functions named in `except` ("name=bytes,name=bytes") are held to their own
# budget instead (npu.h documents them). verbose=1 lists every worst path.
function short(t) { sub(/^.*:/, "", t); return t }
function worst(f,    i, n, c, w, best, key) {
    if (f in done) return done[f]
    if (f in onpath) { cycle = cycle " " f; return 0 }
    onpath[f] = 1
    best = 0
    n = ncallee[f]
    for (i = 1; i <= n; i++) {
        c = callee[f, i]
        if (c == "__indirect_call") w = indirect_worst()
        else if (c in frame) w = worst(c)
        else w = 0
        if (w > best) { best = w; via[f] = c }
    }
    delete onpath[f]
    done[f] = frame[f] + best
    return done[f]
}
function indirect_worst(    g, w, best) {
    if (indirect_done) return indirect_value
    indirect_done = 1
    indirect_value = 0
    for (g in frame) if (!(g in called) && g !~ /^npu_/) {
        w = worst(g)
        if (w > indirect_value) indirect_value = w
    }
    return indirect_value
}
BEGIN { if (budget == "") budget = 4096; if (frame_max == "") frame_max = 1024; status = 0
    n = split(except, ex, ",")
    for (i = 1; i <= n; i++) { split(ex[i], kv, "="); exc[kv[1]] = kv[2] }
}
/^node:/ {
    t = $0; sub(/^node: \{ title: "/, "", t); sub(/".*/, "", t); t = short(t)
    if (match($0, /\\n[0-9]+ bytes \([a-z,]+\)/)) {
        s = substr($0, RSTART + 2, RLENGTH - 2)
        split(s, p, " "); frame[t] = p[1] + 0; kind[t] = p[3]
        if (kind[t] ~ /dynamic/ && kind[t] !~ /bounded/) { print "stack-check: " t ": unbounded dynamic frame"; status = 1 }
    }
}
/^edge:/ {
    s = $0; sub(/^edge: \{ sourcename: "/, "", s); sub(/".*/, "", s); s = short(s)
    d = $0; sub(/.*targetname: "/, "", d); sub(/".*/, "", d); d = short(d)
    if (!((s, d) in seen)) { seen[s, d] = 1; callee[s, ++ncallee[s]] = d; if (d != s) called[d] = 1 }
}
END {
    for (f in frame) if (frame[f] > frame_max && !(f in exc)) {
        printf "stack-check: %s: frame of %d bytes is above %d\n", f, frame[f], frame_max; status = 1 }
    npub = 0
    for (f in frame) if (f ~ /^npu_[a-z0-9]/ && f !~ /[.]/) {
        w = worst(f); lim = (f in exc) ? exc[f] + 0 : budget + 0
        path = f; g = f; while (g in via) { g = via[g]; path = path " > " g }
        line = sprintf("%6d  %s", w, path)
        out[++npub] = line
        if (w > lim) { printf "stack-check: %s needs %d bytes, above its budget of %d\n", f, w, lim; status = 1 }
        if (f in exc) { if (w > maxe) { maxe = w; maxef = f } }
        else if (w > maxw) { maxw = w; maxf = f }
    }
    if (cycle != "") { print "stack-check: recursion through" cycle; status = 1 }
    if (verbose) for (i = 1; i <= npub; i++) print out[i] | "sort -n"
    close("sort -n")
    printf "%d public functions, deepest %s at %d bytes (budget %d)", npub, maxf, maxw, budget
    if (maxef != "") printf "; exceptions: deepest %s at %d bytes", maxef, maxe
    printf "; largest frame allowed %d\n", frame_max
    exit status
}
