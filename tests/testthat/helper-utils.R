# Small utilities shared by the test files.

# (base R has it from 4.4 only)
`%||%` <- function(a, b) if (is.null(a)) b else a

# The argument a dpsco_arg_error names, or the value of `expr` when it
# signals none.
arg_of <- function(expr) tryCatch(expr, dpsco_arg_error = function(e) e$arg)
