# End-to-end tests of the superopt command line (graph check/run on good and malformed files).
