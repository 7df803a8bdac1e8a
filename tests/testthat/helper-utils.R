# Small utilities shared by the test files.

# The tests written against the unstandardised engine compare its fits
# with references on x as given, so they run with standardize = FALSE;
# the default, standardize = "auto", is tested in test-standardize.R and
# the audits with it named in each call.
options(dpsco.standardize = FALSE)

# (`%||%`, which base R has from 4.4 only, is the package's: helper-internal.R)

# The argument a dpsco_arg_error names, or the value of `expr` when it
# signals none.
arg_of <- function(expr) tryCatch(expr, dpsco_arg_error = function(e) e$arg)
