/* npu-info - what the Level Zero loader sees, and the NPU npu would use: drivers,
 * devices, the NPU's properties, graph extension and compiler versions, memory,
 * the OpenVINO-style properties and the optimal number of requests per hint
 * (like OpenVINO's hello_query_device).
 *
 *   npu-info           print everything
 *   npu-info --quiet   print nothing; exit 0 when an NPU opens, 1 when not
 *                      (scripts use it to choose between the NPU and the sim)
 *
 * Exit status: 0 an NPU device opened, 1 none, 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ze_api.h>
#include "npu.h"

static _Alignas(NPU_ARENA_ALIGN) unsigned char memory[64 * 1024];

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

static void print_uuid(const uint8_t *u)
{
    for (int i = 0; i < 16; i++) printf("%02x", u[i]);
    printf(" \"");
    for (int i = 0; i < 16; i++) putchar(u[i] >= 0x20 && u[i] < 0x7f ? u[i] : '.');
    printf("\"");
}

/* Every driver the loader found, with its graph extensions and its devices. */
static void list_drivers(void)
{
    uint32_t n = 0;
    if (zeDriverGet(&n, NULL) != ZE_RESULT_SUCCESS || n == 0) {
        printf("Level Zero drivers: none\n");
        return;
    }
    ze_driver_handle_t *drivers = calloc(n, sizeof *drivers);
    if (drivers == NULL || zeDriverGet(&n, drivers) != ZE_RESULT_SUCCESS) n = 0;
    printf("Level Zero drivers: %u\n", n);
    for (uint32_t i = 0; i < n; i++) {
        ze_driver_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
        ze_api_version_t api = 0;
        zeDriverGetProperties(drivers[i], &dp);
        zeDriverGetApiVersion(drivers[i], &api);
        printf("  driver %u: uuid ", i);
        print_uuid(dp.uuid.id);
        printf(", version %u, API %u.%u\n", dp.driverVersion, ZE_MAJOR_VERSION(api), ZE_MINOR_VERSION(api));
        uint32_t ne = 0;
        zeDriverGetExtensionProperties(drivers[i], &ne, NULL);
        ze_driver_extension_properties_t *ext = calloc(ne ? ne : 1, sizeof *ext);
        if (ext && zeDriverGetExtensionProperties(drivers[i], &ne, ext) == ZE_RESULT_SUCCESS) {
            printf("    extensions: %u", ne);
            for (uint32_t k = 0; k < ne; k++)
                if (strncmp(ext[k].name, "ZE_extension_graph", 18) == 0 && strchr(ext[k].name + 18, '_') == NULL)
                    printf(" (%s %u.%u)", ext[k].name, ZE_MAJOR_VERSION(ext[k].version),
                           ZE_MINOR_VERSION(ext[k].version));
            printf("\n");
        }
        free(ext);
        uint32_t nd = 0;
        zeDeviceGet(drivers[i], &nd, NULL);
        ze_device_handle_t *devs = calloc(nd ? nd : 1, sizeof *devs);
        if (devs && zeDeviceGet(drivers[i], &nd, devs) == ZE_RESULT_SUCCESS) {
            for (uint32_t d = 0; d < nd; d++) {
                ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
                zeDeviceGetProperties(devs[d], &p);
                printf("    device %u: %s, %s, vendor 0x%04x, device 0x%04x\n", d, p.name,
                       device_type(p.type), p.vendorId, p.deviceId);
            }
        }
        free(devs);
    }
    free(drivers);
}

static double mib(uint64_t b) { return (double)b / (1024.0 * 1024.0); }

int main(int argc, char **argv)
{
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quiet") == 0 || strcmp(argv[i], "-q") == 0) quiet = 1;
        else {
            fprintf(stderr, "usage: %s [--quiet]\n", argv[0]);
            return 2;
        }
    }
    npu_arena arena;
    npu_context *ctx;
    npu_device *dev = NULL;
    npu_arena_init(&arena, memory, sizeof memory);
    if (npu_context_create(&arena, NULL, &ctx) != NPU_OK) return 1;
    npu_status st = npu_device_open(&arena, ctx, NULL, &dev);
    if (quiet) {
        npu_device_close(dev);
        return st == NPU_OK ? 0 : 1;
    }

    printf("npu %s (header %s)\n", npu_version_string(), NPU_VERSION_STRING);
    const char *alt = getenv("ZE_ENABLE_ALT_DRIVERS");
    if (alt) printf("ZE_ENABLE_ALT_DRIVERS=%s\n", alt);
    list_drivers();
    if (st != NPU_OK) {
        printf("\nNo NPU: %s\n", npu_context_last_error(ctx));
        return 1;
    }

    npu_device_properties p;
    if (npu_device_get_properties(dev, &p) != NPU_OK) {
        printf("npu_device_get_properties failed: %s\n", npu_context_last_error(ctx));
        npu_device_close(dev);
        return 1;
    }
    printf("\nNPU device%s\n", p.is_simulated ? " (software NPU, not Intel's driver)" : "");
    printf("  name:                  %s\n", p.name);
    printf("  platform:              %s (PCI 0x%04x:0x%04x)\n", p.platform, p.vendor_id, p.device_id);
    printf("  driver version:        %u\n", p.driver_version);
    printf("  Level Zero API:        %u.%u\n", p.api_version >> 16, p.api_version & 0xffff);
    printf("  graph extension:       %u.%u\n", p.graph_ext_version >> 16, p.graph_ext_version & 0xffff);
    printf("  compiler:              %u.%u (max opset %u)\n", p.compiler_version >> 16,
           p.compiler_version & 0xffff, p.max_opset);
    if (p.memory_total)
        printf("  memory:                %.1f MiB allocated of %.1f MiB\n", mib(p.memory_allocated), mib(p.memory_total));
    else
        printf("  memory:                unknown (graph extension < 1.5)\n");
    printf("  IR layout B (no weights copy): %s\n", p.no_weights_copy ? "yes" : "no (layout A)");
    printf("  host memory import (zero copy): %s\n", p.host_memory_import ? "yes" : "no");
    printf("  optimal requests:      LATENCY %u, THROUGHPUT %u\n",
           npu_device_optimal_requests(dev, NPU_HINT_LATENCY), npu_device_optimal_requests(dev, NPU_HINT_THROUGHPUT));

    printf("\nSupported properties:\n");
    for (const char *const *name = npu_device_supported_properties(); name && *name; name++) {
        char value[512];
        size_t size;
        npu_status ps = npu_device_get_property(dev, *name, value, sizeof value, &size);
        printf("  %-36s: %s\n", *name, ps == NPU_OK ? value : npu_status_string(ps));
    }
    npu_device_close(dev);
    return 0;
}
