pragma circom 2.0.0;

// Demo / main example: N chained squarings  t[i] = t[i-1]^2 + k.
//   t[0] = x*x + k,  t[i] = t[i-1]*t[i-1] + k,  out = t[N-1]
// x public input, k private input, out public output => nPublic = 2.
// out <== t[N-1] is removed by the default O1 simplification, so
// nConstraints = N = 2^10 - nPublic - 1 = 1021 and domainSize = 1024 exactly.
// Witness values are full-size field elements after a few squarings.
template SquareChain(N) {
    signal input x;
    signal input k;
    signal output out;
    signal t[N];

    t[0] <== x * x + k;
    for (var i = 1; i < N; i++) {
        t[i] <== t[i-1] * t[i-1] + k;
    }
    out <== t[N-1];
}

component main {public [x]} = SquareChain(1021);
