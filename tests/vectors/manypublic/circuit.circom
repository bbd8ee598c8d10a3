pragma circom 2.0.0;

// 40 public inputs and 3 public outputs => nPublic = 43.
//   p[0] = in[0] * in[1],  p[i] = (p[i-1] + in[i+1]) * in[i+1]   i = 1..38
//   o[0] = p[38],  o[1] = in[0] * in[39],  o[2] = o[0] * o[1]
template ManyPublic(N) {
    signal input in[N];
    signal output o[3];
    signal p[N-1];

    p[0] <== in[0] * in[1];
    for (var i = 1; i < N-1; i++) {
        p[i] <== (p[i-1] + in[i+1]) * in[i+1];
    }
    o[0] <== p[N-2];
    o[1] <== in[0] * in[N-1];
    o[2] <== o[0] * o[1];
}

component main {public [in]} = ManyPublic(40);
