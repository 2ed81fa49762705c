// The translation unit that builds the test binaries' precompiled header
// (tests/CMakeLists.txt, railkit_test_pch): it holds nothing of its own.
