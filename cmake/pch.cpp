// The translation unit that builds the test binaries' shared precompiled header (SEMSIM_PCH).
