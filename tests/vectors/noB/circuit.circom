pragma circom 2.0.0;

// Most wires never occur in any B linear combination, so their B1/B2
// zkey points are the point at infinity.  Only b occurs in B.
//   s1  = a + c + p          (linear: A and B empty, only C)
//   s2  = s1 * b             (s1 only on the A side)
//   out = (s2 + s1 + a) * b
// p public input, a, b, c private, out public output => nPublic = 2.
// Wires with no B term: ONE, out, p, a, c, s1, s2.
template NoB() {
    signal input p;
    signal input a;
    signal input b;
    signal input c;
    signal output out;
    signal s1;
    signal s2;

    s1 <== a + c + p;
    s2 <== s1 * b;
    out <== (s2 + s1 + a) * b;
}

component main {public [p]} = NoB();
