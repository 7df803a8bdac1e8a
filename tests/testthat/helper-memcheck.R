# Under valgrind's memcheck (`make valgrind` sets DPSCO_MEMCHECK=true) R runs
# some 30 times slower; a test may then cut a loop that repeats C paths it
# has already run once, since memcheck needs each path once.
memcheck <- function() identical(Sys.getenv("DPSCO_MEMCHECK"), "true")
