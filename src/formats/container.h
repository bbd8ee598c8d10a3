/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The binary container of the iden3/snarkjs files (.zkey .wtns .r1cs
 * .ptau), both ways: 4-byte magic, u32 version, u32 nSections, then
 * sections {u32 id, u64 size, payload}, every integer little-endian.
 *
 * Reading (pl__container_parse) fills a section table once, checking that
 * every section lies inside the file; the readers (zkey.c, wtns.c, r1cs.c)
 * check payloads against their counts.  Writing (pl__container_writer)
 * puts the header and the sections, in order, through a pl__output; the
 * format writers (zkey.c, wtns.c, r1cs.c) own what goes in each section.
 * Both are implemented in container.c.
 */
#ifndef PL_FORMATS_CONTAINER_H
#define PL_FORMATS_CONTAINER_H

#include "proofline.h"
#include "util/file.h"

/* ---- little-endian fields ---------------------------------------------- */

/* Loads from a mapped file (any alignment, any host order); the caller has
 * checked that the bytes lie inside the file. */
static inline uint32_t pl__le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}
static inline uint64_t pl__le64(const uint8_t *p)
{
    return (uint64_t)pl__le32(p) | (uint64_t)pl__le32(p + 4) << 32;
}
/* Stores, for records built in a buffer before they are written. */
static inline void pl__put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static inline void pl__put_le64(uint8_t *p, uint64_t v)
{
    pl__put_le32(p, (uint32_t)v);
    pl__put_le32(p + 4, (uint32_t)(v >> 32));
}

/* ---- reading ----------------------------------------------------------- */

#define PL__MAX_SECTION_ID 16
#define PL__CONTAINER_HEADER_BYTES 12u /* magic, version, nSections */
#define PL__SECTION_HEADER_BYTES 12u   /* id, size */

typedef struct pl__container {
    char magic[5];
    uint32_t version;
    uint32_t n_sections;
    /* by id (1..PL__MAX_SECTION_ID): payload offset and size; offset 0 = absent */
    uint64_t offset[PL__MAX_SECTION_ID + 1];
    uint64_t size[PL__MAX_SECTION_ID + 1];
} pl__container;

/* Parses the header and section table of a mapped file; `magic` is the
 * expected 4-byte magic. Every section must lie inside the file; duplicate
 * ids are an error. */
pl_status pl__container_parse(pl__container *out, const pl__mapped *m,
                              const char *path, const char *magic,
                              pl_error *err);

/* The 4 bytes at p as text for messages, non-printables as \xNN. */
void pl__magic_text(char out[17], const uint8_t *p);

/* ---- writing ----------------------------------------------------------- */

/* A section size given when its size is not known until it is written:
 * section_end seeks back and writes it.  That needs a seekable output (not
 * a pipe written in place), so give the size first where it is known. */
#define PL__SECTION_SIZE_LATER UINT64_MAX

/*
 * Writes a container through an open pl__output: write_begin (the header),
 * then for each of the n_sections declared sections section_begin, puts,
 * section_end; write_end checks that all were written.  The caller commits
 * or aborts the output.  A section's declared size must equal the bytes
 * put into it (PL_EINTERNAL otherwise, naming the section and the offset).
 * Errors are sticky: after the first, every call returns it and writes
 * nothing, so a run of puts may be checked once at the end.
 */
typedef struct pl__container_writer {
    pl__output *out;
    pl_status status;     /* the first error, or PL_OK */
    uint32_t n_sections;  /* declared in the header */
    uint32_t n_begun;
    bool in_section;
    uint32_t id;          /* the open section's */
    uint64_t declared;    /* its size, or PL__SECTION_SIZE_LATER */
    uint64_t start;       /* its payload's byte offset in the file */
} pl__container_writer;

pl_status pl__container_write_begin(pl__container_writer *w, pl__output *out,
                                    const char magic[4], uint32_t version,
                                    uint32_t n_sections, pl_error *err);
pl_status pl__container_section_begin(pl__container_writer *w, uint32_t id,
                                      uint64_t size, pl_error *err);
pl_status pl__container_put(pl__container_writer *w, const void *data,
                            size_t len, pl_error *err);
pl_status pl__container_put_u32(pl__container_writer *w, uint32_t v,
                                pl_error *err);
pl_status pl__container_put_u64(pl__container_writer *w, uint64_t v,
                                pl_error *err);
pl_status pl__container_section_end(pl__container_writer *w, pl_error *err);
pl_status pl__container_write_end(pl__container_writer *w, pl_error *err);

#endif /* PL_FORMATS_CONTAINER_H */
