/* npu-info - what the Level Zero loader sees, and the NPU npu would use: drivers,
 * devices, the NPU's properties, graph extension and compiler versions, memory,
 * the OpenVINO-style properties and the optimal number of requests per hint
 * (like OpenVINO's hello_query_device). When no NPU opens, it diagnoses why.
 *
 *   npu-info                    print everything; without an NPU, the diagnosis
 *   npu-info --json             the same as one JSON object (with "error" on failure)
 *   npu-info --quiet            print nothing; exit 0 when an NPU opens, 1 when not
 *                               (scripts use it to choose between the NPU and the sim)
 *   npu-info --diagnose         run the checks below even when an NPU opens;
 *                               exit 0 when all pass, 1 when one fails
 *   npu-info --check-blob FILE  will this blob (or npu cache entry) import here?
 *                               exit 0 yes, 1 no (the reason is printed), 2 I/O
 *   npu-info --version | --help
 *
 * Exit status: 0 an NPU device opened; 1 none; 2 usage or I/O error.
 *
 * The diagnosis checks, each printed as "ok" or "FAIL: cause — fix": the Level
 * Zero loader library, the NPU user-space driver library, a stale
 * libze_intel_vpu.so.1 beside libze_intel_npu.so.1, the driver's compiler
 * library, /dev/accel/accel*, the intel_vpu kernel module, access to the accel
 * node (and membership in its group), and ZE_ENABLE_ALT_DRIVERS naming
 * missing files. For tests, NPU_INFO_ROOT=DIR makes every checked path
 * (/dev, /sys, /proc, /etc/ld.so.conf and the library directories) relative to
 * DIR, and the node access check then evaluates the permission bits instead of
 * calling access() (which always succeeds for root). */
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ze_api.h>
#include "npu.h"

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[64 * 1024];
static int json;

/* ---- output helpers ------------------------------------------------------ */

static void json_string(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* One line on stderr; the message without trailing newlines. */
static void one_line(char *msg)
{
    size_t n = strlen(msg);
    while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == ' ')) msg[--n] = '\0';
    for (char *p = msg; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

static int fail_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail_usage(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "npu-info: %s\n", msg);
    if (json) {
        printf("{\"npu_version\": \"%s\", \"error\": ", npu_version_string());
        json_string(msg);
        printf(", \"exit_code\": 2}\n");
    }
    return 2;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: npu-info [--json] [--quiet] [--diagnose] [--check-blob FILE]\n"
            "Shows the Level Zero drivers, the NPU npu would use and its properties.\n"
            "Without an NPU, diagnoses why (each check: ok, or FAIL: cause — fix).\n"
            "  --json              one JSON object on stdout (\"error\" member on failure)\n"
            "  -q, --quiet         print nothing; exit 0 when an NPU opens, 1 when not\n"
            "  --diagnose          run the checks even when an NPU opens; exit 0 when all\n"
            "                      pass, 1 when one fails\n"
            "  --check-blob FILE   will FILE (a blob, e.g. from npu-compile) import on this\n"
            "                      device and driver? Reads its OVNPU metadata tail, compares\n"
            "                      it with the driver, then imports it; exit 0 it will,\n"
            "                      1 it will not (reason printed), 2 the file cannot be read\n"
            "  --version           print npu's version and exit\n"
            "  -h, --help          this text\n"
            "Exit status: 0 an NPU device opened, 1 none, 2 usage or I/O error.\n");
}

/* ---- the diagnosis -------------------------------------------------------- */

typedef struct check {
    const char *name;
    int ok;
    char cause[512], fix[512];
} check;

#define MAX_CHECKS 16
static check checks[MAX_CHECKS];
static int n_checks;

static check *add_check(const char *name)
{
    check *c = &checks[n_checks < MAX_CHECKS ? n_checks++ : MAX_CHECKS - 1];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->ok = 1;
    return c;
}

static void check_fail(check *c, const char *cause, const char *fix, ...)
{
    va_list ap;
    c->ok = 0;
    va_start(ap, fix);
    /* cause and fix share the arguments: cause's come first */
    char both[1024], fmt[1024];
    snprintf(fmt, sizeof fmt, "%s\x1f%s", cause, fix);
    vsnprintf(both, sizeof both, fmt, ap);
    va_end(ap);
    char *sep = strchr(both, '\x1f');
    if (sep) *sep++ = '\0';
    size_t n = strlen(both), k = sep ? strlen(sep) : 0;
    if (n >= sizeof c->cause) n = sizeof c->cause - 1;
    if (k >= sizeof c->fix) k = sizeof c->fix - 1;
    memcpy(c->cause, both, n);
    c->cause[n] = '\0';
    if (sep) memcpy(c->fix, sep, k);
    c->fix[k] = '\0';
}

static const char *root = "";   /* NPU_INFO_ROOT */

static void rooted(char *buf, size_t cap, const char *path) { snprintf(buf, cap, "%s%s", root, path); }

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* The library directories the dynamic linker and the loader search. */
#define MAX_DIRS 64
static char lib_dirs[MAX_DIRS][512];
static int n_lib_dirs;

static void add_dir(const char *dir)
{
    if (dir[0] == '\0' || n_lib_dirs == MAX_DIRS) return;
    char full[512];
    if (root[0] && strncmp(dir, root, strlen(root)) != 0) rooted(full, sizeof full, dir);
    else snprintf(full, sizeof full, "%s", dir);
    for (int i = 0; i < n_lib_dirs; i++)
        if (strcmp(lib_dirs[i], full) == 0) return;
    snprintf(lib_dirs[n_lib_dirs++], sizeof lib_dirs[0], "%s", full);
}

static void read_ld_conf(const char *path, int depth)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (f == NULL || depth > 4) {
        if (f) fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        p[strcspn(p, "#\r\n")] = '\0';
        size_t n = strlen(p);
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) p[--n] = '\0';
        if (*p == '\0') continue;
        if (strncmp(p, "include", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
            char pattern[1024];
            p += 8;
            while (*p == ' ' || *p == '\t') p++;
            if (*p == '/') rooted(pattern, sizeof pattern, p);
            else {   /* relative to the including file's directory */
                const char *slash = strrchr(path, '/');
                snprintf(pattern, sizeof pattern, "%.*s/%s", slash ? (int)(slash - path) : 1, slash ? path : ".", p);
            }
            glob_t g;
            if (glob(pattern, 0, NULL, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc; i++) read_ld_conf(g.gl_pathv[i], depth + 1);
            globfree(&g);
        } else if (*p == '/') {
            add_dir(p);
        }
    }
    fclose(f);
}

static void collect_lib_dirs(void)
{
    char path[512];
    const char *ld = root[0] ? NULL : getenv("LD_LIBRARY_PATH");
    while (ld && *ld) {
        size_t k = strcspn(ld, ":");
        char dir[512];
        snprintf(dir, sizeof dir, "%.*s", (int)k, ld);
        add_dir(dir);
        ld += k + (ld[k] == ':');
    }
    rooted(path, sizeof path, "/etc/ld.so.conf");
    read_ld_conf(path, 0);
    static const char *const defaults[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                                           "/lib", "/usr/lib", "/usr/local/lib"};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) add_dir(defaults[i]);
}

/* First directory holding `name` (its path in out), or 0. */
static int find_lib(const char *name, char *out, size_t cap, int skip)
{
    for (int i = 0; i < n_lib_dirs; i++) {
        if (snprintf(out, cap, "%s/%s", lib_dirs[i], name) >= (int)cap) continue;
        if (exists(out) && skip-- <= 0) return 1;
    }
    out[0] = '\0';
    return 0;
}

static void check_loader(void)
{
    check *c = add_check("Level Zero loader (libze_loader.so.1)");
    char path[1024];
    if (root[0] ? find_lib("libze_loader.so.1", path, sizeof path, 0) : dlopen("libze_loader.so.1", RTLD_LAZY) != NULL)
        return;
    check_fail(c, "libze_loader.so.1 is not in the library path",
               "install the Level Zero loader (Debian/Ubuntu: apt install libze1, or level-zero from "
               "github.com/oneapi-src/level-zero/releases)");
}

static void check_driver_libs(void)
{
    char npu[1024], vpu[1024], compiler[1024];
    int have_npu = find_lib("libze_intel_npu.so.1", npu, sizeof npu, 0);
    int have_vpu = find_lib("libze_intel_vpu.so.1", vpu, sizeof vpu, 0);
    check *c = add_check("NPU user-space driver (libze_intel_npu.so.1)");
    if (!have_npu && !have_vpu)
        check_fail(c, "no libze_intel_npu.so.1 in the library path",
                   "install intel-level-zero-npu from github.com/intel/linux-npu-driver/releases (the .deb "
                   "packages of one release, with intel-driver-compiler-npu)");
    else if (!have_npu)
        check_fail(c, "only the old driver library %s (releases before 1.5 used that name)",
                   "install a current intel-level-zero-npu from github.com/intel/linux-npu-driver/releases", vpu);

    c = add_check("no stale libze_intel_vpu.so.1");
    if (have_vpu && have_npu)
        check_fail(c, "a stale %s (an old driver) shadows %s: the loader may load the old one",
                   "remove the old package (dpkg -S %s; apt remove intel-level-zero-vpu) or the file", vpu, npu,
                   vpu);

    c = add_check("driver compiler (libnpu_driver_compiler.so)");
    const char *drv = have_npu ? npu : have_vpu ? vpu : NULL;
    if (drv) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s", drv);
        *strrchr(dir, '/') = '\0';
        if (snprintf(compiler, sizeof compiler, "%s/libnpu_driver_compiler.so", dir) >= (int)sizeof compiler)
            compiler[0] = '\0';
        if (!exists(compiler) && !find_lib("libnpu_driver_compiler.so", compiler, sizeof compiler, 0))
            check_fail(c, "%s is installed without libnpu_driver_compiler.so: IR models cannot be compiled",
                       "install intel-driver-compiler-npu from the same linux-npu-driver release", drv);
    } else {
        check_fail(c, "no NPU driver library, so no compiler either", "see the driver check above");
    }
}

static void check_kernel(void)
{
    char pattern[512], path[512];
    rooted(pattern, sizeof pattern, "/dev/accel/accel*");
    glob_t g;
    int found = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;

    check *c = add_check("intel_vpu kernel module");
    rooted(path, sizeof path, "/sys/module/intel_vpu");
    int module = exists(path);
    if (!module) {
        rooted(path, sizeof path, "/proc/modules");
        FILE *f = fopen(path, "r");
        char line[512];
        while (f && !module && fgets(line, sizeof line, f)) module = strncmp(line, "intel_vpu ", 10) == 0;
        if (f) fclose(f);
    }
    if (!module)
        check_fail(c, "the intel_vpu module is not loaded",
                   "sudo modprobe intel_vpu (Linux 6.3 or newer; 6.8+ recommended), then dmesg | grep "
                   "intel_vpu for firmware errors (install linux-firmware with intel/vpu/*.bin)");

    c = add_check("NPU device node (/dev/accel/accel*)");
    if (!found)
        check_fail(c, "no /dev/accel/accel* node",
                   "%s; check that the NPU is enabled in the firmware setup (BIOS) and that this is a Core "
                   "Ultra (Meteor Lake or later) CPU",
                   module ? "the module is loaded but made no node: dmesg | grep intel_vpu"
                          : "load the intel_vpu module (above)");

    c = add_check("access to the NPU device node");
    if (!found) {
        check_fail(c, "no node to open", "see the node check above");
        globfree(&g);
        return;
    }
    const char *node = g.gl_pathv[0];
    struct stat sb;
    if (stat(node, &sb) != 0) {
        check_fail(c, "cannot stat %s: %s", "check the node's permissions", node, strerror(errno));
        globfree(&g);
        return;
    }
    int can;
    gid_t groups[256];
    int ng = getgroups(256, groups), in_group = sb.st_gid == getegid();
    for (int i = 0; i < ng; i++) in_group |= groups[i] == sb.st_gid;
    if (root[0]) {   /* test files: evaluate the bits, root included */
        mode_t m = sb.st_mode;
        can = sb.st_uid == geteuid() ? (m & S_IRUSR) && (m & S_IWUSR)
              : in_group             ? (m & S_IRGRP) && (m & S_IWGRP)
                                     : (m & S_IROTH) && (m & S_IWOTH);
    } else {
        can = access(node, R_OK | W_OK) == 0;
    }
    if (!can) {
        struct group *gr = getgrgid(sb.st_gid);
        char gname[64];
        if (gr) snprintf(gname, sizeof gname, "%s", gr->gr_name);
        else snprintf(gname, sizeof gname, "%u", (unsigned)sb.st_gid);
        const char *shown = node + strlen(root);
        if (!in_group && (sb.st_mode & S_IRGRP) && (sb.st_mode & S_IWGRP))
            check_fail(c, "you cannot open %s: it belongs to group %s, and you are not in it",
                       "sudo usermod -a -G %s $USER, then log out and in again", shown, gname, gname);
        else
            check_fail(c, "you cannot open %s (mode %03o, group %s)",
                       "add a udev rule: echo 'SUBSYSTEM==\"accel\", KERNEL==\"accel*\", GROUP=\"render\", "
                       "MODE=\"0660\"' | sudo tee /etc/udev/rules.d/10-intel-vpu.rules; sudo udevadm trigger; "
                       "and be in group render",
                       shown, (unsigned)(sb.st_mode & 0777), gname);
    }
    globfree(&g);
}

static void check_alt_drivers(void)
{
    check *c = add_check("ZE_ENABLE_ALT_DRIVERS");
    const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
    while (alt && *alt) {
        size_t k = strcspn(alt, ",");
        char path[1024];
        snprintf(path, sizeof path, "%.*s", (int)k, alt);
        struct stat sb;
        if (path[0] && stat(path, &sb) != 0) {
            check_fail(c, "ZE_ENABLE_ALT_DRIVERS names %s, which does not exist",
                       "fix the path (an absolute path to the driver .so, e.g. build/libze_npu_sim.so) or "
                       "unset ZE_ENABLE_ALT_DRIVERS",
                       path);
            return;
        }
        alt += k + (alt[k] == ',');
    }
}

static int run_diagnosis(void)
{
    const char *r = getenv("NPU_INFO_ROOT");
    if (r) root = r;
    n_checks = 0;
    n_lib_dirs = 0;
    collect_lib_dirs();
    check_loader();
    check_driver_libs();
    check_kernel();
    check_alt_drivers();
    int failed = 0;
    for (int i = 0; i < n_checks; i++) failed += !checks[i].ok;
    return failed;
}

static void print_diagnosis_text(void)
{
    printf("\nDiagnosis:\n");
    for (int i = 0; i < n_checks; i++) {
        if (checks[i].ok) printf("  %-46s ok\n", checks[i].name);
        else printf("  %-46s FAIL: %s — %s\n", checks[i].name, checks[i].cause, checks[i].fix);
    }
}

static void print_diagnosis_json(void)
{
    printf("\"diagnosis\": [");
    for (int i = 0; i < n_checks; i++) {
        printf("%s{\"check\": ", i ? ", " : "");
        json_string(checks[i].name);
        printf(", \"ok\": %s", checks[i].ok ? "true" : "false");
        if (!checks[i].ok) {
            printf(", \"cause\": ");
            json_string(checks[i].cause);
            printf(", \"fix\": ");
            json_string(checks[i].fix);
        }
        printf("}");
    }
    printf("]");
}

/* ---- drivers and the device ------------------------------------------------ */

static const char *device_type(ze_device_type_t t)
{
    switch (t) {
    case ZE_DEVICE_TYPE_GPU: return "GPU";
    case ZE_DEVICE_TYPE_CPU: return "CPU";
    case ZE_DEVICE_TYPE_FPGA: return "FPGA";
    case ZE_DEVICE_TYPE_MCA: return "MCA";
    case ZE_DEVICE_TYPE_VPU: return "VPU (NPU)";
    default: return "unknown";
    }
}

static void uuid_hex(const uint8_t *u, char *buf)
{
    for (int i = 0; i < 16; i++) sprintf(buf + 2 * i, "%02x", u[i]);
}

/* Every driver the loader found, with its graph extensions and its devices
 * (called after npu_device_open, which initialized the loader). */
static void list_drivers(void)
{
    uint32_t n = 0;
    if (zeDriverGet(&n, NULL) != ZE_RESULT_SUCCESS) n = 0;
    ze_driver_handle_t *drivers = calloc(n ? n : 1, sizeof *drivers);
    if (drivers == NULL || (n && zeDriverGet(&n, drivers) != ZE_RESULT_SUCCESS)) n = 0;
    if (json) printf("\"drivers\": [");
    else if (n == 0) printf("Level Zero drivers: none\n");
    else printf("Level Zero drivers: %u\n", n);
    for (uint32_t i = 0; i < n; i++) {
        ze_driver_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
        ze_api_version_t api = 0;
        char uuid[33];
        if (zeDriverGetProperties(drivers[i], &dp) != ZE_RESULT_SUCCESS) memset(&dp.uuid, 0, sizeof dp.uuid);
        if (zeDriverGetApiVersion(drivers[i], &api) != ZE_RESULT_SUCCESS) api = 0;
        uuid_hex(dp.uuid.id, uuid);
        if (json) {
            printf("%s{\"uuid\": \"%s\", \"version\": %u, \"api\": \"%u.%u\", \"graph_extensions\": [", i ? ", " : "",
                   uuid, dp.driverVersion, ZE_MAJOR_VERSION(api), ZE_MINOR_VERSION(api));
        } else {
            printf("  driver %u: uuid %s \"", i, uuid);
            for (int k = 0; k < 16; k++) putchar(dp.uuid.id[k] >= 0x20 && dp.uuid.id[k] < 0x7f ? dp.uuid.id[k] : '.');
            printf("\", version %u, API %u.%u\n", dp.driverVersion, ZE_MAJOR_VERSION(api), ZE_MINOR_VERSION(api));
        }
        uint32_t ne = 0;
        if (zeDriverGetExtensionProperties(drivers[i], &ne, NULL) != ZE_RESULT_SUCCESS) ne = 0;
        ze_driver_extension_properties_t *ext = calloc(ne ? ne : 1, sizeof *ext);
        if (ext && zeDriverGetExtensionProperties(drivers[i], &ne, ext) == ZE_RESULT_SUCCESS) {
            if (!json) printf("    extensions: %u", ne);
            int first = 1;
            for (uint32_t k = 0; k < ne; k++)
                if (strncmp(ext[k].name, "ZE_extension_graph", 18) == 0 && strchr(ext[k].name + 18, '_') == NULL) {
                    if (json) printf("%s\"%s %u.%u\"", first ? "" : ", ", ext[k].name, ZE_MAJOR_VERSION(ext[k].version),
                                     ZE_MINOR_VERSION(ext[k].version));
                    else printf(" (%s %u.%u)", ext[k].name, ZE_MAJOR_VERSION(ext[k].version),
                                ZE_MINOR_VERSION(ext[k].version));
                    first = 0;
                }
            if (!json) printf("\n");
        }
        free(ext);
        if (json) printf("], \"devices\": [");
        uint32_t nd = 0;
        if (zeDeviceGet(drivers[i], &nd, NULL) != ZE_RESULT_SUCCESS) nd = 0;
        ze_device_handle_t *devs = calloc(nd ? nd : 1, sizeof *devs);
        if (devs && zeDeviceGet(drivers[i], &nd, devs) == ZE_RESULT_SUCCESS) {
            for (uint32_t d = 0; d < nd; d++) {
                ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
                if (zeDeviceGetProperties(devs[d], &p) != ZE_RESULT_SUCCESS) continue;
                if (json) {
                    printf("%s{\"name\": ", d ? ", " : "");
                    json_string(p.name);
                    printf(", \"type\": \"%s\", \"vendor_id\": %u, \"device_id\": %u}", device_type(p.type), p.vendorId,
                           p.deviceId);
                } else {
                    printf("    device %u: %s, %s, vendor 0x%04x, device 0x%04x\n", d, p.name, device_type(p.type),
                           p.vendorId, p.deviceId);
                }
            }
        }
        free(devs);
        if (json) printf("]}");
    }
    if (json) printf("]");
    free(drivers);
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

static void print_device(npu_device *dev, const npu_device_properties *p)
{
    if (json) {
        printf("\"device\": {\"name\": ");
        json_string(p->name);
        printf(", \"platform\": ");
        json_string(p->platform);
        printf(", \"simulated\": %s, \"vendor_id\": %u, \"device_id\": %u, \"driver_version\": %u,"
               " \"api_version\": \"%u.%u\", \"graph_extension\": \"%u.%u\", \"compiler_version\": \"%u.%u\","
               " \"max_opset\": %u, \"memory_total\": %llu, \"memory_allocated\": %llu, \"no_weights_copy\": %s,"
               " \"host_memory_import\": %s, \"optimal_requests\": {\"latency\": %u, \"throughput\": %u},"
               " \"properties\": {",
               p->is_simulated ? "true" : "false", p->vendor_id, p->device_id, p->driver_version, p->api_version >> 16,
               p->api_version & 0xffff, p->graph_ext_version >> 16, p->graph_ext_version & 0xffff,
               p->compiler_version >> 16, p->compiler_version & 0xffff, p->max_opset,
               (unsigned long long)p->memory_total, (unsigned long long)p->memory_allocated,
               p->no_weights_copy ? "true" : "false", p->host_memory_import ? "true" : "false",
               npu_device_optimal_requests(dev, NPU_HINT_LATENCY), npu_device_optimal_requests(dev, NPU_HINT_THROUGHPUT));
    } else {
        printf("\nNPU device%s\n", p->is_simulated ? " (software NPU, not Intel's driver)" : "");
        printf("  name:                  %s\n", p->name);
        printf("  platform:              %s (PCI 0x%04x:0x%04x)\n", p->platform, p->vendor_id, p->device_id);
        printf("  driver version:        %u\n", p->driver_version);
        printf("  Level Zero API:        %u.%u\n", p->api_version >> 16, p->api_version & 0xffff);
        printf("  graph extension:       %u.%u\n", p->graph_ext_version >> 16, p->graph_ext_version & 0xffff);
        printf("  compiler:              %u.%u (max opset %u)\n", p->compiler_version >> 16,
               p->compiler_version & 0xffff, p->max_opset);
        if (p->memory_total)
            printf("  memory:                %.1f MiB allocated of %.1f MiB\n", mib(p->memory_allocated),
                   mib(p->memory_total));
        else
            printf("  memory:                unknown (graph extension < 1.5)\n");
        printf("  IR layout B (no weights copy): %s\n", p->no_weights_copy ? "yes" : "no (layout A)");
        printf("  host memory import (zero copy): %s\n", p->host_memory_import ? "yes" : "no");
        printf("  optimal requests:      LATENCY %u, THROUGHPUT %u\n", npu_device_optimal_requests(dev, NPU_HINT_LATENCY),
               npu_device_optimal_requests(dev, NPU_HINT_THROUGHPUT));
        printf("\nSupported properties:\n");
    }
    int first = 1;
    for (const char *const *name = npu_device_supported_properties(); name && *name; name++) {
        char value[512];
        size_t size;
        npu_status ps = npu_device_get_property(dev, *name, value, sizeof value, &size);
        if (json) {
            printf("%s", first ? "" : ", ");
            json_string(*name);
            printf(": ");
            json_string(ps == NPU_OK ? value : npu_status_string(ps));
        } else {
            printf("  %-36s: %s\n", *name, ps == NPU_OK ? value : npu_status_string(ps));
        }
        first = 0;
    }
    if (json) printf("}}");
}

/* ---- --check-blob ------------------------------------------------------------ */

static void json_kv(const char *key, const char *value, int comma)
{
    printf("%s\"%s\": ", comma ? ", " : "", key);
    json_string(value);
}

/* Exit 0: the blob imports here; 1: it does not (reason printed); 2: I/O. */
static int check_blob(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0) return fail_usage("%s: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) return fail_usage("%s: is a directory, not a blob file", path);
    if (!S_ISREG(sb.st_mode)) return fail_usage("%s: not a regular file", path);   /* a FIFO would block */
    FILE *f = fopen(path, "rb");
    if (f == NULL) return fail_usage("%s: %s", path, strerror(errno));
    size_t size = (size_t)sb.st_size;
    unsigned char *data = NULL;
    if (size > 0 && posix_memalign((void **)&data, 4096, size) != 0) {
        fclose(f);
        return fail_usage("%s: out of memory for %zu bytes", path, size);
    }
    if (size > 0 && fread(data, 1, size, f) != size) {
        fclose(f);
        free(data);
        return fail_usage("%s: read error", path);
    }
    fclose(f);

    char reason[NPU_ERROR_MAX + 256] = "", meta_note[256] = "", compiler_note[256] = "";
    int will = 0;
    npu_arena arena, model_arena;
    npu_context *ctx = NULL;
    npu_device *dev = NULL;
    npu_model *model = NULL;
    void *model_mem = NULL;
    size_t need = 0;
    npu_device_properties props;
    int have_dev = 0;
    npu_blob_info_t info;
    npu_status ist = NPU_ERR_FORMAT;
    memset(&info, 0, sizeof info);
    memset(&props, 0, sizeof props);
    if (npu_arena_init(&arena, memory, sizeof memory) != NPU_OK || npu_context_create(&arena, NULL, &ctx) != NPU_OK) {
        free(data);
        return fail_usage("cannot create a context");
    }
    const unsigned char *blob = data;
    size_t blob_bytes = size;
    int is_entry = 0;
    if (size == 0) {
        snprintf(reason, sizeof reason, "empty file: not a blob");
        goto report;
    }
    /* An npu cache entry (<key>.npucache): the exported blob follows its header
     * (u32 header size at 12, u64 payload size at 48). */
    is_entry = size >= 64 && memcmp(data, "NPUCACHE", 8) == 0;
    if (is_entry) {
        uint32_t header;
        uint64_t payload;
        memcpy(&header, data + 12, 4);
        memcpy(&payload, data + 48, 8);
        if (header < 272 || header > size || payload == 0 || payload > size - header) {
            snprintf(reason, sizeof reason, "a truncated or corrupt npu cache entry");
            goto report;
        }
        blob = data + header;
        blob_bytes = (size_t)payload;
    }
    ist = npu_blob_info(ctx, blob, blob_bytes, &info);
    if (ist != NPU_OK) {
        snprintf(reason, sizeof reason, "malformed OVNPU metadata tail: %s", npu_context_last_error(ctx));
        goto report;
    }
    if (info.has_metadata) {
        uint32_t mj = info.metadata_version >> 16, mn = info.metadata_version & 0xffff;
        if (mn > 7)
            snprintf(meta_note, sizeof meta_note, "metadata %u.%u is newer than npu's 2.7: its extra fields are skipped",
                     mj, mn);
        if (!info.importable) {
            snprintf(reason, sizeof reason, "the blob is %s: npu cannot import it",
                     info.encrypted         ? "encrypted"
                     : info.init_count      ? "weights-separated (it needs init blobs)"
                     : info.blob_type == 1u ? "LLVM, not ELF"
                                            : "not ELF");
            goto report;
        }
    }
    if (npu_device_open(&arena, ctx, NULL, &dev) != NPU_OK) {
        snprintf(reason, sizeof reason, "no NPU to import it on: %s", npu_context_last_error(ctx));
        goto report;
    }
    if (npu_device_get_properties(dev, &props) != NPU_OK) {
        snprintf(reason, sizeof reason, "npu_device_get_properties: %s", npu_context_last_error(ctx));
        goto report;
    }
    have_dev = 1;
    if (info.compiler_version && info.compiler_version != props.compiler_version)
        snprintf(compiler_note, sizeof compiler_note,
                 "compiled by compiler %u.%u, this driver's is %u.%u: the driver may refuse a blob of another "
                 "compiler (the import below decides)",
                 info.compiler_version >> 16, info.compiler_version & 0xffff, props.compiler_version >> 16,
                 props.compiler_version & 0xffff);
    model_mem = NULL;
    /* The exact arena the import needs; the driver refusing the blob shows here already. */
    if (npu_model_import_size(dev, blob, blob_bytes, NULL, &need) != NPU_OK) {
        snprintf(reason, sizeof reason, "the driver refuses it: %s", npu_context_last_error(ctx));
        goto report;
    }
    if (posix_memalign(&model_mem, 4096, need) != 0 || npu_arena_init(&model_arena, model_mem, need) != NPU_OK) {
        snprintf(reason, sizeof reason, "out of memory");
        goto report;
    }
    if (npu_model_import(dev, &model_arena, blob, blob_bytes, NULL, &model) != NPU_OK) {
        snprintf(reason, sizeof reason, "the driver refuses it: %s", npu_context_last_error(ctx));
        goto report;
    }
    will = 1;
report:
    one_line(reason);
    if (json) {
        printf("{\"npu_version\": \"%s\", ", npu_version_string());
        json_kv("file", path, 0);
        printf(", \"bytes\": %zu, \"cache_entry\": %s, \"will_import\": %s", size, is_entry ? "true" : "false",
               will ? "true" : "false");
        if (!will) json_kv("error", reason, 1);
        if (ist == NPU_OK) {
            printf(", \"metadata\": {\"present\": %s", info.has_metadata ? "true" : "false");
            if (info.has_metadata)
                printf(", \"version\": \"%u.%u\", \"writer_version\": \"%u.%u.%u\", \"compiler_version\": \"%u.%u\","
                       " \"batch\": %lld, \"encrypted\": %s, \"blob_type\": %u, \"importable\": %s",
                       info.metadata_version >> 16, info.metadata_version & 0xffff, info.openvino_version[0],
                       info.openvino_version[1], info.openvino_version[2], info.compiler_version >> 16,
                       info.compiler_version & 0xffff, (long long)info.batch_size, info.encrypted ? "true" : "false",
                       info.blob_type, info.importable ? "true" : "false");
            printf(", \"blob_bytes\": %llu}", (unsigned long long)info.blob_size);
        }
        if (have_dev) {
            printf(", \"device\": {");
            json_kv("name", props.name, 0);
            json_kv("platform", props.platform, 1);
            printf(", \"compiler_version\": \"%u.%u\", \"simulated\": %s}", props.compiler_version >> 16,
                   props.compiler_version & 0xffff, props.is_simulated ? "true" : "false");
        }
        printf(", \"notes\": [");
        int k = 0;
        if (meta_note[0]) { json_string(meta_note); k++; }
        if (compiler_note[0]) { printf("%s", k++ ? ", " : ""); json_string(compiler_note); }
        if (info.has_metadata || ist != NPU_OK) {
            printf("%s", k++ ? ", " : "");
            json_string("the platform is not recorded in the metadata tail: the driver checks the ELF on import");
        }
        printf("], \"exit_code\": %d}\n", will ? 0 : 1);
    } else {
        printf("blob: %s (%zu bytes%s)\n", path, size, is_entry ? ", an npu cache entry" : "");
        if (ist == NPU_OK && info.has_metadata) {
            printf("  metadata:         OVNPU %u.%u, written by %u.%u.%u\n", info.metadata_version >> 16,
                   info.metadata_version & 0xffff, info.openvino_version[0], info.openvino_version[1],
                   info.openvino_version[2]);
            printf("  compiler:         %u.%u\n", info.compiler_version >> 16, info.compiler_version & 0xffff);
            printf("  batch:            %lld\n", (long long)info.batch_size);
            printf("  native blob:      %llu bytes, %s%s\n", (unsigned long long)info.blob_size,
                   info.blob_type == 0 ? "ELF" : info.blob_type == 1 ? "LLVM" : "BYTECODE",
                   info.encrypted ? ", encrypted" : "");
            printf("  platform:         not recorded in the metadata tail (the driver checks the ELF on import)\n");
        } else if (ist == NPU_OK) {
            printf("  metadata:         none (a raw driver blob)\n");
        }
        if (have_dev)
            printf("  this device:      %s, platform %s, compiler %u.%u\n", props.name, props.platform,
                   props.compiler_version >> 16, props.compiler_version & 0xffff);
        if (meta_note[0]) printf("  note: %s\n", meta_note);
        if (compiler_note[0]) printf("  note: %s\n", compiler_note);
        if (will) printf("will import: yes\n");
        else printf("will import: no: %s\n", reason);
    }
    if (!will) fprintf(stderr, "npu-info: %s: will not import: %s\n", path, reason);
    npu_model_destroy(model);
    npu_device_close(dev);
    free(model_mem);
    free(data);
    return will ? 0 : 1;
}

/* ---- main ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    int quiet = 0, diagnose = 0;
    const char *blob = NULL;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0) json = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) quiet = 1;
        else if (strcmp(argv[i], "--json") == 0) continue;
        else if (strcmp(argv[i], "--diagnose") == 0) diagnose = 1;
        else if (strcmp(argv[i], "--version") == 0) {
            printf("npu-info (npu) %s\n", npu_version_string());
            return 0;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--check-blob") == 0) {
            if (i + 1 == argc) return fail_usage("--check-blob needs a FILE (see --help)");
            blob = argv[++i];
        } else {
            return fail_usage("unknown argument '%s' (see --help)", argv[i]);
        }
    }
    if (blob) return check_blob(blob);
    if (diagnose) {
        int failed = run_diagnosis();
        if (json) {
            printf("{\"npu_version\": \"%s\", ", npu_version_string());
            print_diagnosis_json();
            if (failed) printf(", \"error\": \"%d check%s failed\"", failed, failed > 1 ? "s" : "");
            printf(", \"exit_code\": %d}\n", failed ? 1 : 0);
        } else if (!quiet) {
            print_diagnosis_text();
        }
        return failed ? 1 : 0;
    }

    npu_arena arena;
    npu_context *ctx;
    npu_device *dev = NULL;
    if (npu_arena_init(&arena, memory, sizeof memory) != NPU_OK || npu_context_create(&arena, NULL, &ctx) != NPU_OK)
        return 1;
    npu_status st = npu_device_open(&arena, ctx, NULL, &dev);
    if (quiet) {
        npu_device_close(dev);
        return st == NPU_OK ? 0 : 1;
    }

    const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
    if (json) {
        printf("{\"npu_version\": \"%s\", \"alt_drivers\": ", npu_version_string());
        if (alt) json_string(alt);
        else printf("null");
        printf(", ");
    } else {
        printf("npu %s (header %s)\n", npu_version_string(), NPU_VERSION_STRING);
        if (alt) printf("ZE_ENABLE_ALT_DRIVERS=%s\n", alt);
    }
    list_drivers();
    npu_device_properties p;
    if (st == NPU_OK && npu_device_get_properties(dev, &p) != NPU_OK) st = NPU_ERR_DRIVER;
    if (st != NPU_OK) {
        char msg[NPU_ERROR_MAX];
        snprintf(msg, sizeof msg, "%s", npu_context_last_error(ctx));
        run_diagnosis();
        if (json) {
            printf(", \"device\": null, \"error\": ");
            json_string(msg);
            printf(", ");
            print_diagnosis_json();
            printf(", \"exit_code\": 1}\n");
        } else {
            printf("\nNo NPU: %s\n", msg);
            print_diagnosis_text();
        }
        npu_device_close(dev);
        return 1;
    }
    if (json) printf(", ");
    print_device(dev, &p);
    if (json) printf(", \"exit_code\": 0}\n");
    npu_device_close(dev);
    return 0;
}
