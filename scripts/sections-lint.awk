# sections-lint.awk - npu.c's structure, as its header promises:
#   1. the table of contents at the top lists exactly the section banners
#      ("/* ==== N. Title ===="), same numbers, same titles, same order;
#   2. no section calls into a later one (data-flow order): every call edge in
#      gcc's call graph (-fcallgraph-info, the .ci file) goes to a function
#      defined in the same or an earlier section. A forward declaration does
#      not make a call legal; the dependency must point backwards.
#
#   awk -v allow=scripts/sections-lint.allow -f scripts/sections-lint.awk npu.c npu.ci
# (the .ci of an -O0 build, so that inlining hides no call). Calls listed in
# the allow file ("caller callee" lines, # comments) are known debt.
# Exit 1 with one line per problem.
BEGIN {
    if (allow != "") while ((getline l < allow) > 0) {
        if (l ~ /^#/ || l ~ /^[ \t]*$/) continue
        split(l, w, /[ \t]+/); allowed[w[1], w[2]] = 1; allowed_line[w[1], w[2]] = l
    }
}
FNR == 1 { file++ }
file == 1 && /^ \* +[0-9]+\. [A-Z]/ && !toc_done {
    line = $0; sub(/^ \* +/, "", line)
    n = line; sub(/\..*/, "", n)
    t = line; sub(/^[0-9]+\. /, "", t); sub(/   .*/, "", t); sub(/ +$/, "", t)
    ntoc++; toc_num[ntoc] = n + 0; toc_title[ntoc] = t
    next
}
file == 1 && /^\/\* ==== [0-9]+\. / {
    toc_done = 1
    t = $0; sub(/^\/\* ==== /, "", t); n = t; sub(/\..*/, "", n)
    sub(/^[0-9]+\. /, "", t); sub(/ =+.*$/, "", t); sub(/ +$/, "", t)
    nban++; ban_num[nban] = n + 0; ban_title[nban] = t; ban_line[nban] = FNR
    next
}
file == 2 && /^node:/ {
    t = $0; sub(/^node: \{ title: "/, "", t); sub(/".*/, "", t); sub(/^.*:/, "", t)
    if (match($0, /\\n[^\\]*npu\.c:[0-9]+:/)) {
        s = substr($0, RSTART, RLENGTH); sub(/.*npu\.c:/, "", s); sub(/:$/, "", s)
        def[t] = s + 0
    }
}
file == 2 && /^edge:/ {
    s = $0; sub(/^edge: \{ sourcename: "/, "", s); sub(/".*/, "", s); sub(/^.*:/, "", s)
    d = $0; sub(/.*targetname: "/, "", d); sub(/".*/, "", d); sub(/^.*:/, "", d)
    ne++; es[ne] = s; ed[ne] = d
}
function section_of(line,    i, k) {
    k = 0
    for (i = 1; i <= nban; i++) if (ban_line[i] <= line) k = ban_num[i]
    return k
}
function base(f) { sub(/\.(part|constprop|isra|cold)\..*$/, "", f); sub(/\.(part|constprop|isra|cold)$/, "", f); return f }
END {
    bad = 0
    if (ntoc != nban) { printf "sections-lint: the table of contents lists %d sections, npu.c has %d banners\n", ntoc, nban; bad = 1 }
    for (i = 1; i <= ntoc && i <= nban; i++)
        if (toc_num[i] != ban_num[i] || toc_title[i] != ban_title[i]) {
            printf "sections-lint: contents entry %d is \"%d. %s\", banner on line %d is \"%d. %s\"\n", i,
                   toc_num[i], toc_title[i], ban_line[i], ban_num[i], ban_title[i]; bad = 1 }
    for (i = 2; i <= nban; i++) if (ban_num[i] != ban_num[i - 1] + 1) {
        printf "sections-lint: banner on line %d is section %d after section %d\n", ban_line[i], ban_num[i], ban_num[i - 1]; bad = 1 }
    nfwd = 0
    for (i = 1; i <= ne; i++) {
        a = base(es[i]); b = base(ed[i])
        if (!(a in def) || !(b in def)) continue
        sa = section_of(def[a]); sb = section_of(def[b])
        if (sb > sa && !((a, b) in told)) {
            told[a, b] = 1
            if ((a, b) in allowed) { seen_allowed[a, b] = 1; nknown++; continue }
            nfwd++
            printf "sections-lint: %s (section %d, line %d) calls %s in later section %d (line %d)\n", a, sa, def[a], b, sb, def[b]
        }
    }
    for (k in allowed) if (!(k in seen_allowed)) {
        split(k, w, SUBSEP); printf "sections-lint: %s no longer calls %s: remove it from the allow file\n", w[1], w[2]; bad = 1 }
    if (nfwd > 0) bad = 1
    if (!bad) printf "sections-lint: %d sections, contents match the banners, no call into a later section (%d known, listed in the allow file)\n", nban, nknown
    exit bad
}
