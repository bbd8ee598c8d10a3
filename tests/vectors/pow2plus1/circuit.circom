pragma circom 2.0.0;

// N chained quadratic constraints (shape of the dev chain template).
//   t[0]   = x * y
//   t[i]   = (t[i-1] + i) * (t[i-1] + y)      i = 1..N-1
//   out    = t[N-1]   (removed by O1 simplification)
// x public input, y private, out public output => nPublic = 2, nConstraints = N.
// A and B linear combinations have several terms, including the ONE wire.
// N = 62: nConstraints + nPublic + 1 = 65 => domainSize = 128 (one past a power of two).
template Chain(N) {
    signal input x;
    signal input y;
    signal output out;
    signal t[N];

    t[0] <== x * y;
    for (var i = 1; i < N; i++) {
        t[i] <== (t[i-1] + i) * (t[i-1] + y);
    }
    out <== t[N-1];
}

component main {public [x]} = Chain(62);
