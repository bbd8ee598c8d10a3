/* SPDX-License-Identifier: Apache-2.0 */
/* C2 assignments from a fuzz input (c2_input.h): the c2_check and
 * supraseal targets' one reading of their bytes. */
#include "c2_input.h"
#include "fuzz.h"
#include "field/field.h"

uint8_t pl_fuzz_take(pl_fuzz_reader *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

/* A length the input chooses: mostly `want`, else near it, twice it,
 * small, or near SIZE_MAX. */
static size_t pick(pl_fuzz_reader *r, size_t want)
{
    uint8_t b = pl_fuzz_take(r);
    switch (b >> 5) {
    case 4:
        return want + (b & 15) >= 8 ? want + (b & 15) - 8 : 0;
    case 5:
        return 2 * want + (b & 7);
    case 6:
        return SIZE_MAX - (b & 3);
    case 7:
        return b & 31;
    default:
        return want;
    }
}

/* Room for a buffer of n items: n if n is within `bound` (what the SRS
 * could want), else none past `bound` -- a check must refuse such a length
 * before it reads a single item. */
static size_t room(size_t n, size_t bound)
{
    return n <= bound ? n : bound;
}

static pl_scalar *scalars(pl_fuzz_reader *r, size_t n, bool *all_below_r)
{
    pl_scalar *v = calloc(n ? n : 1, sizeof(*v));
    PL_FUZZ_ASSERT(v != NULL, "out of memory");
    for (size_t i = 0; i < n && r->p < r->end; i++) {
        uint8_t b = pl_fuzz_take(r);
        if (b < 0xf0) {
            v[i].b[0] = b;
        } else {
            for (int k = 0; k < 32; k++)
                v[i].b[k] = pl_fuzz_take(r);
        }
    }
    for (size_t i = 0; i < n; i++)
        *all_below_r &= pl__scalar_is_canonical(v[i].b);
    return v;
}

/* One assignment from the input; *ok: whether it meets the rules a
 * check must enforce (so an accepted one that does not is a finding). */
void pl_fuzz_c2_build(pl_fuzz_c2 *o, pl_fuzz_reader *r,
                      const pl_bp_info *shape, bool *ok)
{
    memset(o, 0, sizeof(*o));
    pl_c2_assignment *as = &o->as;
    const size_t n_inp = shape->n_ic, n_aux = shape->n_l;
    const size_t domain = (size_t)shape->n_h + 1;
    uint8_t nulls = pl_fuzz_take(r); /* bit k: buffer k is NULL */
    bool fine = true;
    /* densities: a over aux, b over inputs, b over aux */
    const size_t want_bits[3] = {n_aux, n_inp, n_aux};
    size_t *bit_len[3] = {&as->a_aux_bit_len, &as->b_inp_bit_len,
                          &as->b_aux_bit_len};
    size_t *pop[3] = {&as->a_aux_popcount, &as->b_inp_popcount,
                      &as->b_aux_popcount};
    const uint64_t **words[3] = {&as->a_aux_density, &as->b_inp_density,
                                 &as->b_aux_density};
    for (int d = 0; d < 3; d++) {
        size_t len = pick(r, want_bits[d]);
        size_t bits = room(len, want_bits[d] + 64);
        size_t n_words = (bits + 63) / 64;
        uint64_t *w = calloc(n_words ? n_words : 1, sizeof(*w));
        PL_FUZZ_ASSERT(w != NULL, "out of memory");
        size_t set = 0;
        for (size_t i = 0; i < bits; i++)
            if (pl_fuzz_take(r) & 1) {
                w[i / 64] |= UINT64_C(1) << (i % 64);
                set++;
            }
        *bit_len[d] = len;
        *pop[d] = pick(r, set);
        o->density[d] = w;
        *words[d] = nulls & (1u << d) ? NULL : w;
        fine &= len == want_bits[d] && *pop[d] == set &&
                (len == 0 || *words[d]);
    }
    fine &= n_inp + as->a_aux_popcount == shape->n_a &&
            as->b_inp_popcount + as->b_aux_popcount == shape->n_b_g1;
    /* a, b, c; the input and auxiliary assignments */
    as->abc_size = pick(r, (pl_fuzz_take(r) % domain) + 1);
    as->inp_assignment_size = pick(r, n_inp);
    as->aux_assignment_size = pick(r, n_aux);
    const size_t len[5] = {as->abc_size, as->abc_size, as->abc_size,
                           as->inp_assignment_size, as->aux_assignment_size};
    const size_t bound[5] = {domain, domain, domain, n_inp + 8, n_aux + 8};
    const pl_scalar **ptr[5] = {&as->a, &as->b, &as->c, &as->inp_assignment,
                                &as->aux_assignment};
    for (int k = 0; k < 5; k++) {
        o->scalars[k] = scalars(r, room(len[k], bound[k]), &fine);
        *ptr[k] = nulls & (8u << k) ? NULL : o->scalars[k];
        fine &= len[k] == 0 || *ptr[k];
    }
    fine &= as->abc_size <= domain && as->inp_assignment_size == n_inp &&
            as->aux_assignment_size == n_aux;
    *ok = fine;
}

void pl_fuzz_c2_release(pl_fuzz_c2 *o)
{
    for (int d = 0; d < 3; d++)
        free(o->density[d]);
    for (int k = 0; k < 5; k++)
        free(o->scalars[k]);
}

pl_scalar pl_fuzz_c2_blind(pl_fuzz_reader *r, bool *ok)
{
    pl_scalar v = {{0}};
    if (pl_fuzz_take(r) < 0xf0) {
        v.b[0] = pl_fuzz_take(r);
    } else {
        for (int k = 0; k < 32; k++)
            v.b[k] = pl_fuzz_take(r);
        *ok &= pl__scalar_is_canonical(v.b);
    }
    return v;
}

