pragma circom 2.0.0;

// c = a * b ; a, b private inputs, c public output.
// nPublic = 1, nConstraints = 1, domainSize = 4.
template Multiplier2() {
    signal input a;
    signal input b;
    signal output c;
    c <== a * b;
}

component main = Multiplier2();
