pragma circom 2.0.0;

// No public signals at all: no outputs, no public inputs (nPublic = 0).
// 5 constraints => domainSize = nextpow2(5 + 0 + 1) = 8.
template NoPublic() {
    signal input a;
    signal input b;
    signal t1;
    signal t2;
    signal t3;
    signal t4;
    signal t5;

    t1 <== a * b;
    t2 <== t1 * a + 5;
    t3 <== (t2 + b) * (t1 + 2);
    t4 <== t3 * t3;
    t5 <== t4 * (a - b);
}

component main = NoPublic();
