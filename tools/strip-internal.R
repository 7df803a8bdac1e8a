# Rewrites every dpsco:::name in the test files (tests/testthat/test-*.R and
# helper-*.R, not the facade helper-internal.R) to the facade's name, so
# that the tests reach the package's internals through the facade only:
#
#   Rscript tools/strip-internal.R
#
# Run it from the package root after merging test edits that still write
# dpsco:::.  It is idempotent (a second run changes nothing) and quits with
# status 1, rewriting nothing, when
#   - a name used is neither bound in helper-internal.R nor exported,
#   - a file rewritten also assigns that name itself (a local helper or
#     argument of that name would then shadow the facade's), or
#   - a file holds dpsco::: in a string (comments are rewritten too), or
#   - a call of a facade wrapper names an argument that abbreviates one of
#     the wrapper's (it would be matched to that one, not passed on).
# In trace(dpsco:::f, where = asNamespace("dpsco")) and untrace() the name
# becomes the string "f": tracing must change the namespace's function.
# When dpsco is installed it also checks the facade against the namespace:
# a binding whose internal is gone, or a wrapper naming an argument the
# internal no longer has, is an error; a binding no test uses is reported.

dir <- file.path("tests", "testthat")
facade_file <- file.path(dir, "helper-internal.R")
if (!file.exists(facade_file))
  stop("run from the package root: no ", facade_file)

# the facade's top-level assignments, name = value (unevaluated)
facade_bindings <- function(path) {
  exprs <- as.list(parse(path, keep.source = FALSE))
  exprs <- Filter(function(e) is.call(e) && identical(e[[1L]], as.name("<-")) &&
                    is.name(e[[2L]]), exprs)
  stats::setNames(lapply(exprs, `[[`, 3L),
                  vapply(exprs, function(e) as.character(e[[2L]]), ""))
}

# the exported names, from NAMESPACE (exported names need no facade)
exported_names <- function() {
  ns <- parseNamespaceFile(basename(getwd()), dirname(getwd()))
  ns$exports
}

# dpsco:::name and dpsco:::`name` as text, with the name captured
pattern <- "dpsco[[:space:]]*:::[[:space:]]*(`?)([A-Za-z.][A-Za-z0-9._]*)\\1"
trace_pattern <- paste0("\\b((?:un)?trace\\(\\s*)",
                        "dpsco\\s*:::\\s*(`?)([A-Za-z.][A-Za-z0-9._]*)\\2")

# the parse data of a file's dpsco::: uses, and the names it assigns or
# takes as arguments (which would shadow a facade name in that file)
file_uses <- function(path) {
  pd <- utils::getParseData(parse(path, keep.source = TRUE))
  pd <- pd[pd$terminal, ]
  ops <- which(pd$token == "NS_GET_INT")
  ops <- ops[pd$text[ops - 1L] == "dpsco"]
  used <- gsub("^`|`$", "", pd$text[ops + 1L])
  assign_at <- which(pd$token %in% c("LEFT_ASSIGN", "EQ_ASSIGN"))
  targets <- pd$text[assign_at[pd$token[assign_at - 1L] == "SYMBOL"] - 1L]
  right_at <- which(pd$token == "RIGHT_ASSIGN")
  targets <- c(targets, pd$text[right_at[pd$token[right_at + 1L] == "SYMBOL"] + 1L])
  strings <- pd$text[pd$token == "STR_CONST"]
  list(used = used, own = unique(c(targets, pd$text[pd$token == "SYMBOL_FORMALS"])),
       in_strings = any(grepl(pattern, strings)))
}

files <- list.files(dir, pattern = "^(test|helper)-.*\\.[rR]$", full.names = TRUE)
files <- files[basename(files) != basename(facade_file)]
known <- c(names(facade_bindings(facade_file)), exported_names())
problems <- character()
todo <- list()
all_used <- character()
for (f in files) {
  text <- readLines(f, warn = FALSE)
  uses <- file_uses(f)
  all_used <- c(all_used, uses$used)
  if (uses$in_strings)
    problems <- c(problems, sprintf("%s: dpsco::: in a string: rewrite it by hand", f))
  if (!length(uses$used)) next
  missing <- setdiff(uses$used, known)
  if (length(missing))
    problems <- c(problems, sprintf("%s: not in %s: %s", f,
                                    basename(facade_file),
                                    paste(sort(unique(missing)), collapse = ", ")))
  shadowed <- intersect(uses$used, uses$own)
  if (length(shadowed))
    problems <- c(problems, sprintf("%s: assigns a name it uses as dpsco:::%s",
                                    f, paste(sort(shadowed), collapse = ", ")))
  # trace() must find the namespace's function by its name, not the facade's
  text <- gsub(trace_pattern, "\\1\"\\3\"", text, perl = TRUE)
  todo[[f]] <- gsub(pattern, "\\2", text)
}

# the facade against the installed namespace, when there is one: each name
# must still exist, and each wrapper (a function written here) may name only
# arguments the internal of its name still has
check_namespace <- function(bindings) {
  if (!requireNamespace("dpsco", quietly = TRUE)) {
    message("dpsco is not installed: the facade is not checked against it")
    return(character())
  }
  ns <- asNamespace("dpsco")
  bound <- names(bindings)
  gone <- bound[!vapply(bound, exists, NA, envir = ns, inherits = FALSE)]
  out <- if (length(gone))
    sprintf("%s binds names dpsco no longer has: %s", basename(facade_file),
            paste(gone, collapse = ", "))
  for (nm in setdiff(bound, gone)) {
    value <- bindings[[nm]]
    if (!is.call(value) || !identical(value[[1L]], as.name("function"))) next
    lost <- setdiff(names(value[[2L]]), c("...", names(formals(get(nm, ns)))))
    if (length(lost))
      out <- c(out, sprintf("wrapper %s() passes arguments %s() no longer has: %s",
                            nm, nm, paste(lost, collapse = ", ")))
  }
  out
}
bindings <- facade_bindings(facade_file)
bound <- names(bindings)
problems <- c(problems, check_namespace(bindings))

# A named argument that is no argument of a wrapper but begins one of its
# arguments before ... is partially matched to that one instead of passed
# on through ... (oracle_mean(g, "clip", m = 4) with m abbreviating method).
abbreviated_args <- function(path, wrappers) {
  out <- character()
  walk <- function(e) {
    if (!is.call(e)) return()
    fun <- if (is.name(e[[1L]])) as.character(e[[1L]]) else ""
    if (fun %in% names(wrappers)) {
      formal <- names(wrappers[[fun]][[2L]])
      before <- formal[seq_len(match("...", formal, nomatch = 1L) - 1L)]
      given <- setdiff(names(e)[-1L], c("", formal))
      hit <- given[vapply(given, function(a) any(startsWith(before, a)), NA)]
      if (length(hit))
        out <<- c(out, sprintf("%s: %s(%s = ) abbreviates an argument of the wrapper",
                               path, fun, hit[1L]))
    }
    for (a in as.list(e)) if (!missing(a)) walk(a)
  }
  for (e in parse(path, keep.source = FALSE)) walk(e)
  unique(out)
}
wrappers <- Filter(function(v) is.call(v) && identical(v[[1L]], as.name("function")),
                   bindings)
for (f in files) problems <- c(problems, abbreviated_args(f, wrappers))

if (length(problems)) {
  cat("strip-internal: nothing rewritten:\n", paste0("  ", problems, "\n"), sep = "")
  quit(status = 1)
}
for (f in names(todo)) writeLines(todo[[f]], f)
cat(sprintf("strip-internal: %d uses of dpsco::: rewritten in %d files\n",
            length(all_used), length(todo)))
# a name the tests reach without dpsco::: counts as used
code <- unlist(lapply(files, function(f) {
  pd <- utils::getParseData(parse(f, keep.source = TRUE))
  pd$text[pd$token %in% c("SYMBOL", "SYMBOL_FUNCTION_CALL", "SPECIAL")]
}))
unused <- setdiff(bound, c(all_used, code))
if (length(unused))
  cat("strip-internal: bound in the facade but used by no test:",
      paste(unused, collapse = ", "), "\n")
