# stack-check.awk - worst-case stack of every public npu_* function, from the
# call graph and frame sizes gcc writes with -fcallgraph-info=su (a .ci file).
#
#   awk -v budget=4096 -v frame_max=1024 -v except=name=bytes,... -f stack-check.awk npu.ci
#
# Every public function's worst case is the largest sum of frames along any
# call path from it, within npu.c. Calls into libc or the Level Zero driver
# count as zero (the driver's own use is not ours). A call through a function
# pointer is charged by the rules below (which callers call which of npu.c's
# callback families): the worst case of every npu.c function of that family.
# Other indirect calls go to the driver's tables, libc or the caller's logger
# and count zero. Recursion is an error: the bound would not exist.
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
        if (c == "__indirect_call") w = indirect_worst(f, site[f, i])
        else if (c in frame) w = worst(c)
        else w = 0
        if (w > best) { best = w; via[f] = c }
    }
    delete onpath[f]
    done[f] = frame[f] + best
    return done[f]
}
# A call through a function pointer is classified by its call site, the
# source line gcc records on the edge (read from npu.c): which of npu.c's
# callback families it reaches. A call site that matches no family and is not
# a driver, libc or logger call fails the check, so that a new kind of
# callback cannot go uncounted.
function site_family(line,    t, m, f) {
    f = site_family1(src[line])
    if (f == "") f = site_family1(src[line + 1])   # a call continued on the next line
    if (f == "") f = site_family1(src[line + 2])
    return f
}
function site_family1(t,    m) {
    if (t ~ /->g->pfn|d->g->|->pfn[A-Z]/) return "-"                  # the driver's tables
    if (t ~ /ctx->log\(|->log\(/) return "-"                          # the caller's logger
    if (t ~ /->feed\(/) return "_(feed)$"                              # sink feeds
    if (t ~ /(^|[^a-z_])take\(/) return "_take$|^npu__key_constant$"          # constant streams
    if (t ~ /(^|[^a-z_])cmp\(/) return "_cmp$"                                # heapsort comparators
    if (t ~ /(\.|->)infer\(|(^|[^a-z_])f\(n, m\)/) return "^npu__infer_"        # shape inference
    if (t ~ /attrs\(s, n\)/) return "^npu__attrs_"                    # IR <data> writers
    if (t ~ /layout_of\(/) return "_layout_of$"
    if (t ~ /pp_walk\(/) return "^npu__pp_walk$"                    # preprocessing hooks (8e)
    if (t ~ /pp_weights\(/) return "^npu__pp_weights$"
    if (t ~ /pp_key\(/) return "^npu__pp_key$"
    if (t ~ /pp_consts\(/) return "^npu__pp_consts$"
    if (t ~ /->prof_(attach|detach)\(/) return "^npu__req_profiling_(attach|detach)$"   # profiled models
    if (t ~ /->controls\(m, c\)/) return "^npu__model_controls$"       # compile controls
    if (t ~ /l->get\(/) return "^npu__[gi]src_(input|output)$"        # I/O lists of a source
    if (match(t, /->ops->[a-z_]+\(/)) {                                # a model source's table
        m = substr(t, RSTART + 7, RLENGTH - 8)
        if (m == "batch_rewrite") m = "batch"
        return "^npu__[gi]src_" m "$"
    }
    return ""
}
function indirect_worst(caller, line,    fam, g, w, best) {
    fam = site_family(line)
    if (fam == "") { printf "stack-check: %s: unclassified call through a pointer on line %d: %s\n", caller, line, src[line]; status = 1; return 0 }
    if (fam == "-") return 0
    if (fam in fam_done) return fam_done[fam]
    best = 0
    for (g in frame) if (g ~ fam) { w = worst(g); if (w > best) best = w }
    fam_done[fam] = best
    return best
}
BEGIN { if (source == "") source = "npu.c"
    while ((getline l < source) > 0) src[++nsrc] = l
    if (budget == "") budget = 4096; if (frame_max == "") frame_max = 1024; status = 0
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
    ln = 0
    if (match($0, /label: "[^"]*:[0-9]+:/)) { ln = substr($0, RSTART, RLENGTH); sub(/:$/, "", ln); sub(/.*:/, "", ln); ln += 0 }
    if (d == "__indirect_call") { if (!((s, d, ln) in seen)) { seen[s, d, ln] = 1; callee[s, ++ncallee[s]] = d; site[s, ncallee[s]] = ln } }
    else if (!((s, d) in seen)) { seen[s, d] = 1; callee[s, ++ncallee[s]] = d; if (d != s) called[d] = 1 }
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
