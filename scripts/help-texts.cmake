# help-texts.cmake - run at build time (cmake -P) by the top CMakeLists.txt's zka_help target:
# writes OUT/help/zkarena.txt, one OUT/help/zkarena-COMMAND.txt per command that
# `zkarena --commands` names (the CLI's command table in tools/zkarena.c: the one source of
# truth, so the installed list cannot drift from it), zkarena-gpud.txt and zkarena-synth.txt;
# with HELP2MAN set, also the man pages OUT/man/zkarena.1, zkarena-gpud.8 and zkarena-synth.8.
# Any binary that fails its --help or --commands fails the build.
# Inputs: -DZKARENA= -DGPUD= -DSYNTH= -DOUT= -DVERSION= [-DHELP2MAN=]
foreach(v ZKARENA GPUD SYNTH OUT VERSION)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "help-texts.cmake: -D${v}= missing")
  endif()
endforeach()
file(REMOVE_RECURSE "${OUT}/help" "${OUT}/man")
file(MAKE_DIRECTORY "${OUT}/help")

# help(FILE CMD...): CMD's stdout into OUT/help/FILE; a failure or empty text stops the build
function(help file)
  execute_process(COMMAND ${ARGN} OUTPUT_FILE "${OUT}/help/${file}" RESULT_VARIABLE rc)
  file(SIZE "${OUT}/help/${file}" size)
  if(NOT rc EQUAL 0 OR size EQUAL 0)
    message(FATAL_ERROR "help-texts.cmake: `${ARGN}` exited ${rc} with ${size} bytes")
  endif()
endfunction()

execute_process(COMMAND "${ZKARENA}" --commands OUTPUT_VARIABLE cmds RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR cmds STREQUAL "")
  message(FATAL_ERROR "help-texts.cmake: `zkarena --commands` exited ${rc}")
endif()
string(STRIP "${cmds}" cmds)
string(REPLACE "\n" ";" cmds "${cmds}")
help(zkarena.txt "${ZKARENA}" --help)
foreach(c ${cmds})
  help(zkarena-${c}.txt "${ZKARENA}" ${c} --help)
endforeach()
help(zkarena-gpud.txt "${GPUD}" --help)
help(zkarena-synth.txt "${SYNTH}" --help)

if(HELP2MAN)
  file(MAKE_DIRECTORY "${OUT}/man")
  string(REPLACE ";" ", " list "${cmds}")
  # man(BINARY SECTION NAME SEE-ALSO): help2man from BINARY's --help, the footer "zkarena VERSION"
  function(man bin section name see)
    get_filename_component(base "${bin}" NAME)
    file(WRITE "${OUT}/man/${base}.h2m"
         "[SEE ALSO]\n${see}\nThe documentation: /usr/share/doc/zkarena/README.md and the pages "
         "beside it.\n")
    execute_process(COMMAND "${HELP2MAN}" --no-info --no-discard-stderr --section ${section}
                            --name "${name}" --version-string "${VERSION}"
                            --source "zkarena ${VERSION}" --include "${OUT}/man/${base}.h2m"
                            --output "${OUT}/man/${base}.${section}" "${bin}"
                    RESULT_VARIABLE rc)
    file(REMOVE "${OUT}/man/${base}.h2m")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "help-texts.cmake: help2man ${base} exited ${rc}")
    endif()
  endfunction()
  man("${ZKARENA}" 1 "Groth16 proving pipeline: prove, verify, run and operate an arena"
      "zkarena-gpud(8), zkarena-synth(8). Each command's own text:\n.B zkarena\n.I COMMAND\n.BR --help ,\nalso in /usr/share/doc/zkarena/help/ (commands: ${list}).")
  man("${GPUD}" 8 "the proving daemon of a zkarena arena" "zkarena(1), zkarena-synth(8).")
  man("${SYNTH}" 8 "a synthesis worker of a zkarena arena" "zkarena(1), zkarena-gpud(8).")
endif()
file(WRITE "${OUT}/help.stamp" "")
