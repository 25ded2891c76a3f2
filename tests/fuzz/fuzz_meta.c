/* libFuzzer target: the OVNPU metadata tail reader (npu__meta_read,
 * npu_blob_info) on hostile input. Properties checked besides "no crash, no
 * over-read": a tail that reads back OK is rewritten with npu__meta_write and
 * must read back with the same fields. */
#include <stdlib.h>
#include "../../npu.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char m_rows[NPU__META_MAX_LAYOUTS][NPU_LAYOUT_MAX], back_rows[NPU__META_MAX_LAYOUTS][NPU_LAYOUT_MAX];
    npu__blob_meta m, back;
    npu_blob_info_t info;
    npu_status st;
    memset(m_rows, 0, sizeof m_rows);
    memset(back_rows, 0, sizeof back_rows);
    memset(&m, 0, sizeof m);
    memset(&back, 0, sizeof back);
    m.layouts = m_rows;       /* the parser fills the caller's rows */
    back.layouts = back_rows;
    st = npu__meta_read(NULL, data, size, &m);
    npu_status st_info = npu_blob_info(NULL, data, size, &info);
    if (st_info == NPU_OK && info.has_metadata && info.blob_size >= size) abort();
    if (st == NPU_OK) {
        npu__sink s;
        unsigned char *buf;
        size_t n;
        if (st_info != NPU_OK || m.blob_size > size) abort();
        if (m.version == 0) return 0;
        /* rewrite: count, then write, after a copy of the blob part */
        npu__sink_init(&s, NULL, 0);
        s.len = (size_t)m.blob_size;
        npu__meta_write(&s, &m);
        n = s.len;
        buf = (unsigned char *)malloc(n);
        if (buf == NULL) return 0;
        memcpy(buf, data, (size_t)m.blob_size);
        npu__sink_init(&s, buf, n);
        s.len = (size_t)m.blob_size;
        npu__meta_write(&s, &m);
        if (s.len != n) abort();
        if (npu__meta_read(NULL, buf, n, &back) != NPU_OK) abort();
        if ((m.version & 0xffffu) <= 7 && back.version != m.version) abort();
        if (back.batch_size != m.batch_size || back.compiler_version != m.compiler_version ||
            back.n_input_layouts != m.n_input_layouts ||
            back.n_output_layouts != m.n_output_layouts ||
            memcmp(back_rows, m_rows, sizeof m_rows) != 0 ||
            memcmp(back.ov_version, m.ov_version, sizeof m.ov_version) != 0)
            abort();
        free(buf);
    }
    return 0;
}
