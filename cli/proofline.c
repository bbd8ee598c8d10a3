/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The `proofline` command: a thin layer over the public API.
 *
 *   proofline prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>
 *   proofline verify <verification_key.json> <public.json> <proof.json>
 *   proofline vkey <circuit.zkey> <verification_key.json>
 *   proofline inspect <file>
 *
 * The argument order of `prove` is rapidsnark's, so proofline is a drop-in.
 * Exit codes: 0 success, 1 invalid proof, 2 bad usage or bad input,
 * 3 internal error.  Errors go to stderr as one line naming the file.
 */
#define _POSIX_C_SOURCE 200809L
#include "proofline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *prog = "proofline";

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s %s: ", prog, cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s %s --help'.\n", prog, cmd);
    return 2;
}

static int fail(const char *cmd, pl_status st, const pl_error *err)
{
    fprintf(stderr, "%s %s: %s: %s\n", prog, cmd, pl_strerror(st),
            err->msg[0] ? err->msg : "(no detail)");
    return pl_status_exit_code(st);
}

static bool is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Parses a positive integer option value. */
static bool parse_count(const char *text, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end || v == 0 || v > 4096 || text[0] == '-')
        return false;
    *out = (unsigned)v;
    return true;
}

/* ---- prove ------------------------------------------------------------- */

static const char prove_help[] =
    "Usage: proofline prove <circuit.zkey> <witness.wtns> <proof.json> "
    "<public.json> [options]\n"
    "\n"
    "Makes a Groth16 proof (BLS12-381) from a snarkjs zkey and a witness, and\n"
    "writes proof.json and public.json as snarkjs does.  The argument order is\n"
    "rapidsnark's.  Nothing is written if anything fails.\n"
    "\n"
    "Options:\n"
    "  --threads N          worker threads (default: one per core)\n"
    "  --verify             verify the proof with the zkey's verification key\n"
    "                       before writing it\n"
    "  --check-witness      check every constraint first; on the first that\n"
    "                       fails, report it and do not prove.  Needs the\n"
    "                       circuit's .r1cs (the zkey has no C matrix): given\n"
    "                       with --r1cs, or found beside the zkey as <name>.r1cs\n"
    "  --r1cs FILE          the circuit's .r1cs, for --check-witness\n"
    "  --timings            print each stage's time to stderr\n"
    "  -h, --help           this text\n";

typedef struct {
    bool print;
    double total;
} timings;

static void on_stage(void *user, const char *stage, double seconds)
{
    timings *t = user;
    t->total += seconds;
    if (t->print)
        fprintf(stderr, "  %-10s %8.3f s\n", stage, seconds);
}

/* circuit.zkey -> circuit.r1cs, or NULL when the name has no .zkey suffix */
static char *r1cs_beside(const char *zkey_path)
{
    size_t len = strlen(zkey_path);
    if (len < 5 || strcmp(zkey_path + len - 5, ".zkey") != 0)
        return NULL;
    char *p = malloc(len + 1);
    if (p) {
        memcpy(p, zkey_path, len - 5);
        strcpy(p + len - 5, ".r1cs");
    }
    return p;
}

static int cmd_prove(int argc, char **argv)
{
    const char *pos[4];
    int npos = 0;
    unsigned threads = 0;
    bool verify = false, check = false, print_timings = false;
    const char *r1cs_path = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (is_help(a)) {
            fputs(prove_help, stdout);
            return 0;
        } else if (strcmp(a, "--threads") == 0) {
            if (i + 1 >= argc || !parse_count(argv[i + 1], &threads))
                return usage_error("prove", "--threads needs a count from 1 "
                                   "to 4096%s", "");
            i++;
        } else if (strcmp(a, "--r1cs") == 0) {
            if (i + 1 >= argc)
                return usage_error("prove", "--r1cs needs a file%s", "");
            r1cs_path = argv[++i];
        } else if (strcmp(a, "--verify") == 0) {
            verify = true;
        } else if (strcmp(a, "--check-witness") == 0) {
            check = true;
        } else if (strcmp(a, "--timings") == 0) {
            print_timings = true;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("prove", "unknown option %s", a);
        } else if (npos < 4) {
            pos[npos++] = a;
        } else {
            return usage_error("prove", "unexpected argument %s", a);
        }
    }
    if (npos != 4)
        return usage_error("prove", "needs 4 files: <circuit.zkey> "
                           "<witness.wtns> <proof.json> <public.json>%s", "");

    pl_error err = {0};
    pl_zkey *zkey = NULL;
    pl_wtns *wtns = NULL;
    pl_r1cs *r1cs = NULL;
    pl_prover *prover = NULL;
    pl_vkey *vkey = NULL;
    char *derived_r1cs = NULL;
    pl_status st;
    timings t = {print_timings, 0};
    double t0 = now_seconds();

    if ((st = pl_zkey_open(&zkey, pos[0], &err)) ||
        (st = pl_wtns_open(&wtns, pos[1], &err)))
        goto done;
    if (check) {
        if (!r1cs_path)
            r1cs_path = derived_r1cs = r1cs_beside(pos[0]);
        if (!r1cs_path) {
            st = PL_EUSAGE;
            snprintf(err.msg, sizeof(err.msg),
                     "--check-witness needs the circuit's .r1cs: give --r1cs "
                     "FILE");
            goto done;
        }
        if ((st = pl_r1cs_open(&r1cs, r1cs_path, &err)) ||
            (st = pl_r1cs_matches_zkey(r1cs, zkey, &err)) ||
            (st = pl_witness_check(r1cs, wtns, &err)))
            goto done;
        if (print_timings)
            fprintf(stderr, "  witness satisfies all constraints\n");
    }
    if (print_timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "load", now_seconds() - t0);

    pl_prover_config cfg;
    pl_prover_config_init(&cfg);
    cfg.threads = threads;
    cfg.on_stage = on_stage;
    cfg.on_stage_user = &t;
    if ((st = pl_prover_create(&prover, zkey, &cfg, &err)))
        goto done;
    pl_proof proof;
    if ((st = pl_prove(prover, &proof, wtns, &err)))
        goto done;

    pl_zkey_info info;
    pl_zkey_get_info(zkey, &info);
    const pl_scalar *publics = pl_wtns_values(wtns) + 1;
    if (verify) {
        double tv = now_seconds();
        if ((st = pl_vkey_from_zkey(&vkey, zkey, &err)))
            goto done;
        st = pl_verify(vkey, &proof, publics, info.n_public, &err);
        if (st != PL_OK) {
            /* A proof that does not verify is our bug, not the user's. */
            if (st == PL_EINVALID) {
                st = PL_EINTERNAL;
                snprintf(err.msg, sizeof(err.msg),
                         "the proof did not verify; nothing was written");
            }
            goto done;
        }
        if (print_timings)
            fprintf(stderr, "  %-10s %8.3f s (OK)\n", "verify",
                    now_seconds() - tv);
    }
    st = pl_proof_write_json(&proof, pos[2], publics, info.n_public, pos[3],
                             &err);
    if (st == PL_OK && print_timings)
        fprintf(stderr, "  %-10s %8.3f s\n", "total", now_seconds() - t0);
done:
    pl_vkey_destroy(vkey);
    pl_prover_destroy(prover);
    pl_r1cs_close(r1cs);
    pl_wtns_close(wtns);
    pl_zkey_close(zkey);
    free(derived_r1cs);
    return st == PL_OK ? 0 : fail("prove", st, &err);
}

/* ---- verify ------------------------------------------------------------ */

static const char verify_help[] =
    "Usage: proofline verify <verification_key.json> <public.json> "
    "<proof.json>\n"
    "\n"
    "Checks a Groth16 proof (BLS12-381) as snarkjs does: public inputs < r,\n"
    "proof points on the curve and in the subgroup, then one multi-pairing.\n"
    "Prints OK and exits 0 for a valid proof, INVALID and exits 1 for an\n"
    "invalid one; bad input exits 2.\n";

static int cmd_verify(int argc, char **argv)
{
    if (argc == 1 && is_help(argv[0])) {
        fputs(verify_help, stdout);
        return 0;
    }
    for (int i = 0; i < argc; i++)
        if (is_help(argv[i])) {
            fputs(verify_help, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("verify", "unknown option %s", argv[i]);
        }
    if (argc != 3)
        return usage_error("verify", "needs 3 files: <verification_key.json> "
                           "<public.json> <proof.json>%s", "");
    pl_error err = {0};
    pl_vkey *vkey = NULL;
    pl_scalar *publics = NULL;
    size_t count = 0;
    pl_proof proof;
    pl_status st;
    if ((st = pl_vkey_read_json(&vkey, argv[0], &err)) ||
        (st = pl_public_read_json(&publics, &count, argv[1], &err)) ||
        (st = pl_proof_read_json(&proof, argv[2], &err)))
        goto done;
    st = pl_verify(vkey, &proof, publics, count, &err);
done:
    pl_vkey_destroy(vkey);
    free(publics);
    if (st == PL_OK) {
        puts("OK");
        return 0;
    }
    if (st == PL_EINVALID) {
        puts("INVALID");
        if (err.msg[0])
            fprintf(stderr, "%s verify: %s\n", prog, err.msg);
        return 1;
    }
    return fail("verify", st, &err);
}

/* ---- vkey -------------------------------------------------------------- */

static const char vkey_help[] =
    "Usage: proofline vkey <circuit.zkey> <verification_key.json>\n"
    "\n"
    "Exports the verification key of a Groth16 zkey, with the same values as\n"
    "`snarkjs zkey export verificationkey`.\n";

static int cmd_vkey(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (is_help(argv[i])) {
            fputs(vkey_help, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("vkey", "unknown option %s", argv[i]);
        }
    if (argc != 2)
        return usage_error("vkey", "needs 2 files: <circuit.zkey> "
                           "<verification_key.json>%s", "");
    pl_error err = {0};
    pl_zkey *zkey = NULL;
    pl_vkey *vkey = NULL;
    pl_status st;
    if ((st = pl_zkey_open(&zkey, argv[0], &err)) ||
        (st = pl_vkey_from_zkey(&vkey, zkey, &err)))
        goto done;
    st = pl_vkey_write_json(vkey, argv[1], &err);
done:
    pl_vkey_destroy(vkey);
    pl_zkey_close(zkey);
    return st == PL_OK ? 0 : fail("vkey", st, &err);
}

/* ---- inspect ----------------------------------------------------------- */

static const char inspect_help[] =
    "Usage: proofline inspect <file>\n"
    "\n"
    "Validates a .zkey, .wtns or .r1cs (recognised by its magic) and prints\n"
    "its header facts as `key: value` lines.\n";

static int cmd_inspect(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (is_help(argv[i])) {
            fputs(inspect_help, stdout);
            return 0;
        }
    if (argc != 1)
        return usage_error("inspect", "needs one file%s", "");
    pl_error err = {0};
    pl_status st = pl_inspect(argv[0], stdout, &err);
    return st == PL_OK ? 0 : fail("inspect", st, &err);
}

/* ---- main -------------------------------------------------------------- */

static const char main_help[] =
    "proofline " PL_VERSION_STRING
    ": a Groth16 prover for BLS12-381 that reads and writes snarkjs files.\n"
    "\n"
    "Usage: proofline <command> [arguments]\n"
    "\n"
    "Commands:\n"
    "  prove    <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "  verify   <verification_key.json> <public.json> <proof.json>\n"
    "  vkey     <circuit.zkey> <verification_key.json>\n"
    "  inspect  <file>\n"
    "\n"
    "`proofline <command> --help` describes each command.\n"
    "Exit codes: 0 success, 1 invalid proof, 2 bad usage or input, "
    "3 internal error.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(main_help, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (is_help(cmd) || strcmp(cmd, "help") == 0) {
        fputs(main_help, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        puts("proofline " PL_VERSION_STRING);
        return 0;
    }
    if (strcmp(cmd, "prove") == 0)
        return cmd_prove(argc - 2, argv + 2);
    if (strcmp(cmd, "verify") == 0)
        return cmd_verify(argc - 2, argv + 2);
    if (strcmp(cmd, "vkey") == 0)
        return cmd_vkey(argc - 2, argv + 2);
    if (strcmp(cmd, "inspect") == 0)
        return cmd_inspect(argc - 2, argv + 2);
    fprintf(stderr, "%s: unknown command '%s'\n\n%s", prog, cmd, main_help);
    return 2;
}
