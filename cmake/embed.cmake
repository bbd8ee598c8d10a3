# SPDX-License-Identifier: Apache-2.0
# Turns a file into a C array at build time (cmake -P, called by a custom
# command in CMakeLists.txt): -DIN=file -DOUT=file.c -DNAME=symbol gives
# `const unsigned char NAME[]` (the bytes and a NUL) and `const size_t
# NAME_len`.  The live page (service/http/page.html) is served from it, so
# the binary needs no file beside it at run time.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" body "${body}")
file(WRITE "${OUT}"
  "/* Generated from ${IN} by cmake/embed.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "const unsigned char ${NAME}[] = {\n${body}0x00};\n"
  "const size_t ${NAME}_len = ${bytes};\n")
