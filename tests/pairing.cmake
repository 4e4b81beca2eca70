# The fast pairing against the reference pairing, both curves.
zka_test(test_pairing test_pairing.c LIBS zka_core TIMEOUT 600)
