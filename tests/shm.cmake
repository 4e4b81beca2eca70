# Suites of the shared-memory arena (shm/): each forks several processes.
if(TARGET zka_shm)
  zka_test(shm_ring shm_ring.c LIBS zka_shm TIMEOUT 120 LABELS shm)
  zka_test(shm_crash shm_crash.c LIBS zka_shm TIMEOUT 180 LABELS shm)
  zka_test(shm_bad shm_bad.c LIBS zka_shm TIMEOUT 60 LABELS shm)
  zka_test(shm_status shm_status.c LIBS zka_pipe zka_shm TIMEOUT 60 LABELS shm)
endif()
