pragma circom 2.0.0;

// Witness holds 0, 1 and r-1 (r = BLS12-381 scalar field order), public
// values included: public.json contains r-1 and 0.
//   m  = a * b     = r-1        (a = r-1 = -1, b = 1)
//   z2 = a * z     = 0          (z = 0)
//   sq = a * a     = 1
//   out  = m * sq  = r-1        (public output)
//   out0 = z2 * m + e = 0      (public output)
//   e    = (a + 1) * (b + z)  = 0   (product with a zero factor)
//   f    = c * c   = 1          (c = -1)
// a, z public inputs; b, c private; c = -1 given as "-1" in input.json.
template EdgeValues() {
    signal input a;
    signal input z;
    signal input b;
    signal input c;
    signal output out;
    signal output out0;
    signal m;
    signal z2;
    signal sq;
    signal e;
    signal f;

    m <== a * b;
    z2 <== a * z;
    sq <== a * a;
    e <== (a + 1) * (b + z);
    f <== c * c;
    out <== m * sq;
    out0 <== z2 * m + e;
}

component main {public [a, z]} = EdgeValues();
