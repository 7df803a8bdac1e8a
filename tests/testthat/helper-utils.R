# Small utilities shared by the test files.

# (`%||%`, which base R has from 4.4 only, is the package's: helper-internal.R)

# The argument a dpsco_arg_error names, or the value of `expr` when it
# signals none.
arg_of <- function(expr) tryCatch(expr, dpsco_arg_error = function(e) e$arg)
