# Small utilities every layer uses.

# The left side unless it is NULL.
`%||%` <- function(a, b) if (is.null(a)) b else a

# A method's matched call as the user wrote it, through the generic; the
# formula methods' first argument unnamed, as in lm().  (Nothing in the
# call is evaluated: an argument such as matrix(rnorm(n)) would draw from
# the generator again.)
generic_call <- function(call, name, formula = FALSE) {
  call[[1L]] <- as.name(name)
  if (formula && length(call) > 1L && identical(names(call)[2L], "x"))
    names(call)[2L] <- ""
  call
}

# Threads the engine may run: OMP_THREAD_LIMIT or the processor count, 1
# without OpenMP.
max_threads <- function() .Call(C_dpsco_max_threads)

# The list without its NULL elements.
compact <- function(l) l[!vapply(l, is.null, TRUE)]
