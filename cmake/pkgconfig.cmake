# SPDX-License-Identifier: Apache-2.0
# pl_install_pc(NAME TEMPLATE): installs lib/pkgconfig/NAME.pc from
# TEMPLATE (a .pc.in with @...@ variables) and, beside it, NAME-shared.pc
# (cmake/shared.pc.in), the shared library's link, which NAME.pc requires.
#
# Why two files: pkg-config prints a module's Libs first, then its
# Libs.private (with --static), then the modules it requires.  So NAME.pc
# carries the static archive in Libs.private (-l:libNAME.a) and takes the
# shared library's -lNAME from NAME-shared.pc, where it comes after the
# archive and is linked --as-needed: `pkg-config --libs NAME` links the
# shared library, `pkg-config --static --libs NAME` the archive alone (the
# shared library then resolves nothing and is not recorded as needed).
#
# The prefix is written at install time (`cmake --install --prefix` may
# change it after configuring; file(INSTALL) honours DESTDIR and records
# the file in install_manifest.txt), hence the @PL_PC_PREFIX@ kept for
# the second configure_file.
function(pl_install_pc name template)
  set(PL_PC_PREFIX "@PL_PC_PREFIX@")
  set(PL_LIB ${name})
  configure_file(${template} ${CMAKE_BINARY_DIR}/pc/${name}.pc.in @ONLY)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/shared.pc.in
                 ${CMAKE_BINARY_DIR}/pc/${name}-shared.pc.in @ONLY)
  foreach(pc ${name} ${name}-shared)
    install(CODE "
      set(PL_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
      configure_file(${CMAKE_BINARY_DIR}/pc/${pc}.pc.in
                     ${CMAKE_BINARY_DIR}/pc/${pc}.pc @ONLY)
      file(INSTALL ${CMAKE_BINARY_DIR}/pc/${pc}.pc
           DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")"
      COMPONENT dev)
  endforeach()
endfunction()
