pragma circom 2.0.0;

// Benchmark circuit: a chain of quadratic constraints whose values are
// full-size field elements (not 0/1), built from blocks so that circom
// compiles one block template instead of unrolling one huge loop.
//   t0 = x * y;  in each block: u[0] = (in + 1) * (in + y),
//                               u[i] = (u[i-1] + i) * (u[i-1] + y)
// nConstraints = 1 + NB * M + R; with x public and out public, nPublic = 2,
// so NB * M + R = 2^k - 4 gives a domain of exactly 2^k.
template Block(M) {
    signal input in;
    signal input y;
    signal output out;
    signal u[M];
    u[0] <== (in + 1) * (in + y);
    for (var i = 1; i < M; i++) {
        u[i] <== (u[i-1] + i) * (u[i-1] + y);
    }
    out <== u[M-1];
}

template ChainBlocks(NB, M, R) {
    signal input x;
    signal input y;
    signal output out;
    signal t0;
    t0 <== x * y;
    component b[NB];
    for (var k = 0; k < NB; k++) {
        b[k] = Block(M);
        b[k].in <== (k == 0) ? t0 : b[k-1].out;
        b[k].y <== y;
    }
    component tail = Block(R);
    tail.in <== b[NB-1].out;
    tail.y <== y;
    out <== tail.out;
}
