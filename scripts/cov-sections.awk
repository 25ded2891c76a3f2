# Line and branch coverage of npu.c per section, from an lcov tracefile.
#   awk -f scripts/cov-sections.awk npu.c build/cov/npu.info
# Sections are the "/* ==== N. Name ===" headers of npu.c. A line or branch
# counts as covered when any record of npu.c in the tracefile (the library,
# the white-box suites) executed it.
FNR == NR {
    if (match($0, /^\/\* ==== [0-9]+\. [^=]*/)) {
        name = substr($0, 9, RLENGTH - 8)
        sub(/ +$/, "", name)
        n_sec++
        sec_start[n_sec] = FNR
        sec_name[n_sec] = name
    }
    next
}
/^SF:/ { in_npu = ($0 ~ /\/npu\.c$/); next }
!in_npu { next }
/^DA:/ {
    split(substr($0, 4), f, ",")
    line_seen[f[1]] = 1
    if (f[2] + 0 > 0) line_hit[f[1]] = 1
    next
}
/^BRDA:/ {
    split(substr($0, 6), f, ",")
    key = f[1] "," f[2] "," f[3]
    br_line[key] = f[1]
    if (f[4] != "-" && f[4] + 0 > 0) br_hit[key] = 1
    next
}
function section_of(line,    s) {
    for (s = n_sec; s >= 1; s--)
        if (line >= sec_start[s]) return s
    return 0
}
END {
    for (l in line_seen) { s = section_of(l + 0); lines[s]++; if (l in line_hit) lines_hit[s]++ }
    for (k in br_line) { s = section_of(br_line[k] + 0); brs[s]++; if (k in br_hit) brs_hit[s]++ }
    printf "%-44s %17s %17s\n", "npu.c section", "lines", "branches"
    for (s = 0; s <= n_sec; s++) {
        if (!lines[s] && !brs[s]) continue
        printf "%-44s %6.1f%% %4d/%-4d %6.1f%% %4d/%-4d\n", s ? sec_name[s] : "(preamble)",
               lines[s] ? 100 * lines_hit[s] / lines[s] : 100, lines_hit[s], lines[s],
               brs[s] ? 100 * brs_hit[s] / brs[s] : 100, brs_hit[s], brs[s]
        tl += lines[s]; tlh += lines_hit[s]; tb += brs[s]; tbh += brs_hit[s]
    }
    printf "%-44s %6.1f%% %4d/%-4d %6.1f%% %4d/%-4d\n", "total", 100 * tlh / tl, tlh, tl,
           tb ? 100 * tbh / tb : 100, tbh, tb
}
