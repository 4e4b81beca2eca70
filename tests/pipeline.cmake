# The pipeline end to end on the CPU backend (shell-driven; node parses JSON).
set(ZKA_SNARKJS_CLI ${CMAKE_SOURCE_DIR}/tests/interop/node_modules/snarkjs/cli.js)
if(NOT EXISTS ${ZKA_SNARKJS_CLI})
  set(ZKA_SNARKJS_CLI "")
endif()
add_test(NAME pipeline_basic COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/basic.sh $<TARGET_FILE:zkarena> ${ZKA_SNARKJS_CLI})
add_test(NAME pipeline_crash COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/crash.sh $<TARGET_FILE:zkarena>)
add_test(NAME pipeline_lanes COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/lanes.sh $<TARGET_FILE:zkarena>)
# 200 jobs as the issue asks; under the sanitizers every process is several times slower, so the
# sanitizer build runs the same test on 60 jobs (the release build runs the full 200).
if(ZKA_SANITIZE)
  set(ZKA_CHAOS_JOBS 60)
else()
  set(ZKA_CHAOS_JOBS 200)
endif()
add_test(NAME pipeline_chaos COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/chaos.sh $<TARGET_FILE:zkarena> ${ZKA_CHAOS_JOBS})
# several gpuds on one arena, chaos with kills of single gpuds (fewer jobs under the sanitizers)
if(ZKA_SANITIZE)
  set(ZKA_GPUDS_JOBS 12)
else()
  set(ZKA_GPUDS_JOBS 30)
endif()
add_test(NAME pipeline_gpuds COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/gpuds.sh $<TARGET_FILE:zkarena> ${ZKA_GPUDS_JOBS})
# zkarena serve: the HTTP/JSON job API with curl on loopback (200 concurrent submits; fewer under
# the sanitizers)
if(ZKA_SANITIZE)
  set(ZKA_HTTP_JOBS 40)
else()
  set(ZKA_HTTP_JOBS 200)
endif()
add_test(NAME pipeline_http COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/http.sh $<TARGET_FILE:zkarena> ${ZKA_HTTP_JOBS})
# start errors: unknown options (one line, every command), run's exit status when a child
# refuses to start, one run per arena
add_test(NAME pipeline_runcli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/runcli.sh $<TARGET_FILE:zkarena>)
# config check, run from a settings file, NUMA binding read back, metrics and promtool
add_test(NAME pipeline_ops COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/ops.sh $<TARGET_FILE:zkarena>)
# a later high-priority job overtakes queued ones, FIFO within a priority; the age rule with a
# 400 ms step (ZKA_PRIORITY_AGE_MS)
add_test(NAME pipeline_priority COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/priority.sh $<TARGET_FILE:zkarena>)
# sd_notify without systemd: a datagram socket of our own in NOTIFY_SOCKET (built with libsystemd
# only: without it zka_notify does nothing)
if(SYSTEMD_FOUND)
  add_executable(zka_notify_listen ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/notify_listen.c)
  add_test(NAME pipeline_notify COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/pipeline/notify.sh $<TARGET_FILE:zkarena> $<TARGET_FILE:zka_notify_listen> $<TARGET_FILE:zkarena-gpud> $<TARGET_FILE:zkarena-synth>)
  set_tests_properties(pipeline_notify PROPERTIES TIMEOUT 120 RUN_SERIAL TRUE)
endif()
set_tests_properties(pipeline_basic pipeline_crash pipeline_lanes pipeline_gpuds pipeline_ops pipeline_priority pipeline_http pipeline_runcli PROPERTIES TIMEOUT 600 RUN_SERIAL TRUE)
set_tests_properties(pipeline_chaos PROPERTIES TIMEOUT 900 RUN_SERIAL TRUE)
