# railkit env: the names and lists that reach shell text, and GID addresses.
railkit_add_fuzzer(podenv_names_fuzz SOURCE podenv_names_fuzz.cc LIBS railkit_podenv)
