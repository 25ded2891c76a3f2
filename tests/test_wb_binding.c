/* White-box: section 9's small tables against the driver's ABI, without a
 * driver: which graph-extension version a function table supports (every
 * entry, at the version it appeared), platform names from PCI device ids,
 * element types and layouts from the driver's argument codes, and the
 * directory fsync that makes a rename durable. */
#include "../npu.c"

#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

static ze_result_t fake_any(void) { return ZE_RESULT_SUCCESS; }

typedef struct entry {
    const char *name;
    size_t offset;
    int since;   /* minor version of 1.x that introduced it */
} entry;

#define E(f, s) {#f, offsetof(npu__ze_graph_ddi, f), s}
static const entry entries[] = {
    E(pfnCreate, 0), E(pfnDestroy, 0), E(pfnGetProperties, 0), E(pfnGetArgumentProperties, 0),
    E(pfnSetArgumentValue, 0), E(pfnAppendGraphInitialize, 0), E(pfnAppendGraphExecute, 0),
    E(pfnGetNativeBinary, 0), E(pfnDeviceGetGraphProperties, 0), E(pfnGraphGetArgumentMetadata, 1),
    E(pfnGetArgumentProperties2, 1), E(pfnGetArgumentProperties3, 2), E(pfnBuildLogGetString, 4),
    E(pfnCreate2, 5), E(pfnQueryContextMemory, 5), E(pfnGetNativeBinary2, 7), E(pfnGetProperties2, 8),
    E(pfnGraphInitialize, 8), E(pfnCompilerIsOptionSupported, 11), E(pfnCreate3, 12),
};

static void full_table(npu__ze_graph_ddi *g)
{
    void (*const f)(void) = (void (*)(void))fake_any;
    size_t k;
    memset(g, 0, sizeof *g);
    for (k = 0; k < sizeof entries / sizeof entries[0]; k++) memcpy((char *)g + entries[k].offset, &f, sizeof f);
}

static void test_each_missing_entry_caps_the_version_below_its_own(void **state)
{
    size_t k;
    (void)state;
    for (k = 0; k < sizeof entries / sizeof entries[0]; k++) {
        npu__ze_graph_ddi g;
        void *null_fn = NULL;
        int v;
        full_table(&g);
        memcpy((char *)&g + entries[k].offset, &null_fn, sizeof null_fn);
        /* Offered the highest version: capped just below the entry's version,
         * or unusable (0) without a 1.0 entry. */
        if (npu__ext_usable(&g, NPU__ZE_GRAPH_EXT_MAX) !=
            (entries[k].since == 0 ? 0u : NPU__ZE_VERSION(1, entries[k].since - 1)))
            fail_msg("without %s: version 0x%x", entries[k].name, npu__ext_usable(&g, NPU__ZE_GRAPH_EXT_MAX));
        /* Offered any version below the entry's: not affected. */
        for (v = 0; v < entries[k].since; v++)
            if (npu__ext_usable(&g, NPU__ZE_VERSION(1, v)) != NPU__ZE_VERSION(1, v))
                fail_msg("without %s, version 1.%d became 0x%x", entries[k].name, v,
                         npu__ext_usable(&g, NPU__ZE_VERSION(1, v)));
    }
}

static void test_platform_names_from_device_ids(void **state)
{
    (void)state;
    assert_string_equal(npu__platform_name(0x7D1D), "3720");
    assert_string_equal(npu__platform_name(0xAD1D), "3720");
    assert_string_equal(npu__platform_name(0x643E), "4000");
    assert_string_equal(npu__platform_name(0xB03E), "50xx");
    assert_string_equal(npu__platform_name(0xFD3E), "50xx");
    assert_string_equal(npu__platform_name(0x1234), "unknown");
}

static void test_argument_codes(void **state)
{
    static const uint32_t ones[5] = {1, 1, 1, 1, 1}, r3[5] = {2, 3, 4, 1, 1}, r5[5] = {2, 3, 4, 5, 6};
    static const struct {
        uint32_t code;
        const char *layout;
        uint32_t rank;
    } codes[] = {{0x1, "NCHW", 4}, {0x2, "NHWC", 4}, {0x3, "NCDHW", 5}, {0x4, "NDHWC", 5}, {0x60, "C", 1},
                 {0x80, "CHW", 3},  {0xC0, "HW", 2},   {0xC1, "NC", 2},    {0xC2, "CN", 2}};
    size_t k;
    int t;
    (void)state;
    for (k = 0; k < sizeof codes / sizeof codes[0]; k++) {
        /* (codes[k].layout: the name the driver means; npu shows none of
         * them, since they follow the rank, not the model.) */
        assert_non_null(codes[k].layout);
        assert_int_equal(npu__rank_from_layout(codes[k].code, r5), codes[k].rank);
    }
    /* An unknown (blocked/any) layout: rank from the trailing 1s. */
    assert_int_equal(npu__rank_from_layout(0xFF, r3), 3);
    assert_int_equal(npu__rank_from_layout(0xFF, r5), 5);
    assert_int_equal(npu__rank_from_layout(0xFF, ones), 1);
    /* Layout names by rank for the build flags; beyond rank 5: BLOCKED. */
    assert_string_equal(npu__layout_by_rank(0), "**SCALAR**");   /* literal, asterisks included */
    assert_string_equal(npu__layout_by_rank(4), "NCHW");
    assert_string_equal(npu__layout_by_rank(5), "NCDHW");
    assert_string_equal(npu__layout_by_rank(6), "BLOCKED");
    /* Every element type round-trips through its driver precision; unknown
     * precisions are UNDEFINED. */
    for (t = 1; t < (int)NPU_TYPE_COUNT; t++) assert_int_equal(npu__type_from_ze(npu__types[t].ze_precision), t);
    assert_int_equal(npu__type_from_ze(0xEE), NPU_TYPE_UNDEFINED);
    /* Buffers are whole pages, at least one. */
    assert_int_equal(npu__round_page(0), 4096);
    assert_int_equal(npu__round_page(1), 4096);
    assert_int_equal(npu__round_page(4097), 8192);
    assert_int_equal(npu__ze_priority(NPU_PRIORITY_LOW), ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW);
    assert_int_equal(npu__ze_priority(NPU_PRIORITY_HIGH), ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH);
    assert_int_equal(npu__ze_priority(NPU_PRIORITY_DEFAULT), ZE_COMMAND_QUEUE_PRIORITY_NORMAL);
}

static void test_directory_fsync_of_every_path_form(void **state)
{
    char dir[64], path[128], *longp;
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/npu-wb-binding-XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/file", dir);
    assert_int_equal(npu__fsync_dir_of(path), 0);              /* dir/file */
    assert_int_equal(npu__fsync_dir_of("relative-file"), 0);   /* no slash: "." */
    assert_int_equal(npu__fsync_dir_of("/vmlinuz-or-anything"), 0); /* in "/" */
    snprintf(path, sizeof path, "%s/missing/file", dir);
    assert_int_equal(npu__fsync_dir_of(path), ENOENT);
    longp = (char *)malloc(5000);
    memset(longp, 'a', 4999);
    longp[0] = '/';
    longp[4990] = '/';
    longp[4999] = '\0';
    assert_int_equal(npu__fsync_dir_of(longp), ENAMETOOLONG);
    free(longp);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_missing_entry_caps_the_version_below_its_own),
        cmocka_unit_test(test_platform_names_from_device_ids),
        cmocka_unit_test(test_argument_codes),
        cmocka_unit_test(test_directory_fsync_of_every_path_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
