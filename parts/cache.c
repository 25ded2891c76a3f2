/* parts/cache.c: section of npu.c (merged into npu.c before release). */
/* SCAFFOLD: replaced by the blob-metadata implementation (helper npu4). */
static npu_status npu__meta_read(npu_context *ctx, const unsigned char *data, size_t size,
                                 npu__blob_meta *out)
{
    NPU__UNUSED(data);
    memset(out, 0, sizeof *out);
    out->blob_size = size;
    return npu__fail(ctx, NPU_ERR_UNSUPPORTED, "blob metadata: not written yet");
}
static void npu__meta_write(npu__sink *s, const npu__blob_meta *meta)
{
    NPU__UNUSED(s);
    NPU__UNUSED(meta);
}
