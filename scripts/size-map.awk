# size-map.awk - bytes one object contributes to a linked program, from the
# GNU ld map of the link (-Wl,-Map=FILE): the input sections of `obj` that the
# linker kept (after --gc-sections) in the output sections .text and .rodata
# (.data.rel.ro, the constant tables that hold pointers, counts as .rodata).
# Sizes are after string merging (ld's "size before relaxing" is ignored).
#
#   awk -v obj=build/size/npu-blob.o -f scripts/size-map.awk prog.map
#   -> "text 12345 rodata 2345"
#
# Map format: an output section starts in column 0 (".text  ADDR SIZE"); each
# input section is indented by one space, " .text.name  ADDR SIZE FILE", its
# address, size and file on the next line when the name is long.

/^Linker script and memory map/ { in_map = 1; next }
!in_map { next }
/^[^ ]/ { out = $1; pending = ""; next }
/^ \.[^ ]*$/ { pending = $1; next }
/^ \./ {
    pending = ""
    if (NF >= 4) add($3, $4)
    next
}
/^                0x/ && pending != "" {
    if (NF >= 3) add($2, $3)
    pending = ""
    next
}
{ pending = "" }

function add(size, file) {
    if (file != obj) return
    if (out == ".text") text += strtonum_(size)
    else if (out == ".rodata" || out == ".data.rel.ro") rodata += strtonum_(size)
}

# Hex "0x..." to a number (POSIX awk has no strtonum).
function strtonum_(h,    i, c, v) {
    h = tolower(h)
    sub(/^0x/, "", h)
    v = 0
    for (i = 1; i <= length(h); i++) {
        c = index("0123456789abcdef", substr(h, i, 1)) - 1
        v = v * 16 + c
    }
    return v
}

END { printf "text %d rodata %d\n", text, rodata }
