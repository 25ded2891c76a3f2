/* blob_util.h - rewrites the argument table of a sim native blob (sim/elf.c:
 * an ELF with a .sim.plan section of fixed records and a .sim.weights section,
 * checked by an FNV-1a sum) so that tests can hand the library hostile
 * argument tables. The export's OVNPU tail, if any, is left as it is. */
#ifndef BLOB_UTIL_H
#define BLOB_UTIL_H

#include <elf.h>
#include <stdint.h>
#include <string.h>

#include "sim/sim_plan.h"

#define BU_PLAN_HEADER 80u   /* sizeof(plan_header) in sim/elf.c (plan format 2), 8-aligned */

typedef struct bu_blob {
    unsigned char *b;
    size_t n;
    size_t plan_off, plan_size, weights_off, weights_size;
    uint32_t n_args;
} bu_blob;

/* 0 when the sections are found in bounds. */
static inline int bu_open(bu_blob *bb, unsigned char *b, size_t n)
{
    Elf64_Ehdr eh;
    Elf64_Shdr sh[16], *strs;
    unsigned i;
    memset(bb, 0, sizeof *bb);
    bb->b = b;
    bb->n = n;
    if (n < sizeof eh || memcmp(b, ELFMAG, SELFMAG) != 0) return -1;
    memcpy(&eh, b, sizeof eh);
    if (eh.e_shnum == 0 || eh.e_shnum > 16 || eh.e_shstrndx >= eh.e_shnum ||
        eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > n)
        return -1;
    memcpy(sh, b + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
    strs = &sh[eh.e_shstrndx];
    for (i = 0; i < eh.e_shnum; i++) {
        const char *name;
        if (sh[i].sh_name >= strs->sh_size || sh[i].sh_offset + sh[i].sh_size > n) continue;
        name = (const char *)b + strs->sh_offset + sh[i].sh_name;
        if (strcmp(name, ".sim.plan") == 0) {
            bb->plan_off = sh[i].sh_offset;
            bb->plan_size = sh[i].sh_size;
        } else if (strcmp(name, ".sim.weights") == 0) {
            bb->weights_off = sh[i].sh_offset;
            bb->weights_size = sh[i].sh_size;
        }
    }
    if (bb->plan_size < BU_PLAN_HEADER) return -1;
    memcpy(&bb->n_args, b + bb->plan_off + 28, sizeof bb->n_args);  /* after magic, version, sizes */
    if (BU_PLAN_HEADER + (uint64_t)bb->n_args * sizeof(sim_arg) > bb->plan_size) return -1;
    return 0;
}

/* Argument i's record, in place (unaligned: copy it out to read). */
static inline unsigned char *bu_arg(const bu_blob *bb, uint32_t i)
{
    return bb->b + bb->plan_off + BU_PLAN_HEADER + (size_t)i * sizeof(sim_arg);
}

static inline void bu_get_arg(const bu_blob *bb, uint32_t i, sim_arg *a) { memcpy(a, bu_arg(bb, i), sizeof *a); }
static inline void bu_put_arg(const bu_blob *bb, uint32_t i, const sim_arg *a) { memcpy(bu_arg(bb, i), a, sizeof *a); }

static inline uint64_t bu_fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* Recomputes the checksum after edits (as sim_plan_build_native does). */
static inline void bu_seal(const bu_blob *bb)
{
    unsigned char *sec = bb->b + bb->plan_off;
    uint64_t h = bu_fnv1a(bu_fnv1a(UINT64_C(0xcbf29ce484222325), sec + BU_PLAN_HEADER,
                                   bb->plan_size - BU_PLAN_HEADER),
                          bb->b + bb->weights_off, bb->weights_size);
    memcpy(sec + BU_PLAN_HEADER - 8, &h, sizeof h);   /* the checksum ends the header */
}

/* Renames argument i (its name only; tensor names are left). */
static inline void bu_rename(const bu_blob *bb, uint32_t i, const char *name)
{
    sim_arg a;
    bu_get_arg(bb, i, &a);
    memset(a.name, 0, sizeof a.name);
    strncpy(a.name, name, sizeof a.name - 1);
    bu_put_arg(bb, i, &a);
}

#endif /* BLOB_UTIL_H */
