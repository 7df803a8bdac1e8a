# tools/check-structure.R -- the house's structure rules as a check that fails
#
#   Rscript tools/check-structure.R            check the tree (run by make check)
#   Rscript tools/check-structure.R --counts   print the measures, fail on nothing
#   Rscript tools/check-structure.R --list     every violation as an allowed-list line
#   Rscript tools/check-structure.R --self-test
#                                              plant one violation of each rule
#                                              in a scratch tree, expect each to fail
#
# Run from the package root.  The rules, read off the parsed R/ sources
# (utils::getParseData), not off text, so comments and strings never count:
#
#   long_function  a top-level function of R/ over 100 lines
#   long_file      an R/ file over 600 lines, unless all but 600 of them
#                  are roxygen (a documentation page)
#   family_branch  a family's name compared (==, !=, %in%, identical(),
#                  match(), a switch() case on an expression that names a
#                  fam or family) outside R/family*.R: what a family does is
#                  a field of its object
#   is_sharded     a call of is_sharded() in a function not on the list
#   noise          a random draw (rnorm(), runif(), rexp(), ..., the secure
#                  generator's .Call) outside R/release.R (release(),
#                  release_symmetric(), release_choice()) in a function
#                  not on the list: privacy noise is drawn in one place
#   family_field   a field set by a family constructor (new_family()) that
#                  the field table (family_fields() in R/family-fields.R)
#                  does not list
#   mutual         two R files each calling a function the other defines,
#                  a pair not on the list; a file R/x.R and its parts
#                  R/x-*.R are one room, whose files may call each other
#   internal       dpsco::: in a test file other than the facade
#                  tests/testthat/helper-internal.R
#
# The list of allowed exceptions is tools/structure-allowed.txt, one per
# line: "<rule> <site>" with a site "R/file.R:function" (is_sharded, noise,
# long_function), "R/file.R" (long_file) or "R/a.R R/b.R" (mutual, in
# alphabetical order); text after " # " is the reason.  An entry that no
# longer matches a violation is an error too, so the list only shrinks.

# The families' names: those of family_codes in R/family.R when the tree
# has it (a new family is then checked too), else these.
family_names <- c("gaussian", "binomial", "poisson", "quantile", "multinomial")
noise_calls <- c("rnorm", "runif", "rexp", "rcauchy", "rlogis", "rgamma",
                 "rchisq", "rbeta", "rt", "rweibull")
secure_calls <- c("C_dpsco_secure_noise", "C_dpsco_secure_unif")
max_function_lines <- 100L
max_file_lines <- 600L

# ---------------------------------------------------------------------------
# Reading the sources

# (the text of the terminals only: an expression's text, which is slow to
# form for every node, is read on demand by expr_text())
parse_file <- function(path) {
  exprs <- parse(path, keep.source = TRUE)
  raw <- utils::getParseData(exprs, includeText = NA)
  list(path = path, exprs = exprs, raw = raw,
       pd = raw[order(raw$line1, raw$col1, raw$id), ],
       lines = readLines(path, warn = FALSE))
}

expr_text <- function(f, id) paste(utils::getParseText(f$raw, id), collapse = "\n")

# The top-level functions of a parsed file: name, first and last line.
top_functions <- function(f) {
  out <- list()
  srcrefs <- attr(f$exprs, "srcref")
  for (i in seq_along(f$exprs)) {
    e <- f$exprs[[i]]
    if (is.call(e) && as.character(e[[1L]])[1L] %in% c("<-", "=") &&
        is.name(e[[2L]]) && is.call(e[[3L]]) &&
        identical(e[[3L]][[1L]], as.name("function"))) {
      sr <- srcrefs[[i]]
      out[[length(out) + 1L]] <- data.frame(
        name = as.character(e[[2L]]), first = sr[[1L]], last = sr[[3L]])
    }
  }
  if (length(out)) do.call(rbind, out)
  else data.frame(name = character(), first = integer(), last = integer())
}

# The enclosing top-level function of a line ("" when none).
function_at <- function(fns, line) {
  k <- which(fns$first <= line & fns$last >= line)
  if (length(k)) fns$name[k[1L]] else "<top level>"
}

# Calls in a file: the called name, its line and whether it is qualified
# by a package other than dpsco (stats::rnorm counts as rnorm).
calls_in <- function(f) {
  pd <- f$pd
  tok <- pd[pd$terminal, ]
  k <- which(tok$token == "SYMBOL_FUNCTION_CALL")
  pkg <- vapply(k, function(i) {
    if (i >= 3L && tok$token[i - 1L] %in% c("NS_GET", "NS_GET_INT"))
      tok$text[i - 2L] else ""
  }, "")
  data.frame(name = tok$text[k], line = tok$line1[k], pkg = pkg,
             stringsAsFactors = FALSE)
}

read_tree <- function(root) {
  files <- sort(list.files(file.path(root, "R"), pattern = "[.][Rr]$",
                           full.names = TRUE))
  lapply(stats::setNames(files, sub(paste0("^", root, "/"), "", files)),
         function(p) {
    f <- parse_file(p)
    f$rel <- sub(paste0("^", root, "/"), "", p)
    f$fns <- top_functions(f)
    f$calls <- calls_in(f)
    f
  })
}

# ---------------------------------------------------------------------------
# The rules: each returns a data frame of violations (rule, site, detail).

# The children of a parse-data node, by its id (rows of pd; NULL: none),
# from one split of the row indices (splitting the data frame itself is
# slow on a large file).
children_of <- function(pd) {
  idx <- split(seq_len(nrow(pd)), pd$parent)
  function(id) {
    k <- idx[[as.character(id)]]
    if (is.null(k)) NULL else pd[k, , drop = FALSE]
  }
}

violation <- function(rule, site, detail)
  data.frame(rule = rule, site = site, detail = detail, stringsAsFactors = FALSE)

none <- function() violation(character(), character(), character())

rule_long_function <- function(tree) {
  out <- list()
  for (f in tree) {
    len <- f$fns$last - f$fns$first + 1L
    for (i in which(len > max_function_lines))
      out[[length(out) + 1L]] <- violation(
        "long_function", paste0(f$rel, ":", f$fns$name[i]),
        sprintf("%d lines (at most %d)", len[i], max_function_lines))
  }
  do.call(rbind, c(list(none()), out))
}

rule_long_file <- function(tree) {
  out <- list()
  for (f in tree) {
    n <- length(f$lines)
    code <- sum(!grepl("^\\s*#'", f$lines))
    if (n > max_file_lines && code > max_file_lines)
      out[[length(out) + 1L]] <- violation(
        "long_file", f$rel,
        sprintf("%d lines, %d of them not roxygen (at most %d)", n, code,
                max_file_lines))
  }
  do.call(rbind, c(list(none()), out))
}

# A family's name compared: a string constant naming a family whose
# expression (up to three levels up) is ==, !=, %in%, or a call of
# identical(), match() or switch(); or a switch() case named by a family.
rule_family_branch <- function(tree) {
  fam <- tree[["R/family.R"]]
  if (!is.null(fam)) for (e in fam$exprs)
    if (is.call(e) && identical(e[[2L]], as.name("family_codes")))
      family_names <- names(eval(e[[3L]], baseenv()))
  out <- list()
  quoted <- c(paste0('"', family_names, '"'), paste0("'", family_names, "'"))
  for (f in tree) {
    if (grepl("^R/family", f$rel)) next
    pd <- f$pd
    hits <- pd[pd$token == "STR_CONST" & pd$text %in% quoted, ]
    sw <- pd[pd$token == "SYMBOL_FUNCTION_CALL" & pd$text == "switch", ]
    if (!nrow(hits) && !nrow(sw)) next
    parent_of <- stats::setNames(pd$parent, pd$id)
    text_of <- function(id) expr_text(f, id)
    kid <- children_of(pd)
    # (only a comparison that involves a family: a kernel named
    # "gaussian" is not one)
    compares <- function(id) {
      if (!grepl("fam", text_of(id))) return(FALSE)
      ch <- kid(id)
      if (is.null(ch)) return(FALSE)
      if (any(ch$token %in% c("EQ", "NE")) ||
          any(ch$token == "SPECIAL" & ch$text == "%in%")) return(TRUE)
      # a call: its first child expression holds the function's name
      first <- ch[ch$token == "expr", ][1L, ]
      if (is.na(first$id)) return(FALSE)
      fn <- kid(first$id)
      !is.null(fn) && any(fn$token == "SYMBOL_FUNCTION_CALL" &
                            fn$text %in% c("identical", "match", "switch"))
    }
    for (i in seq_len(nrow(hits))) {
      id <- hits$id[i]
      for (up in 1:3) {
        id <- parent_of[[as.character(id)]]
        if (is.null(id) || id == 0) break
        if (compares(id)) {
          out[[length(out) + 1L]] <- violation(
            "family_branch", sprintf("%s:%d", f$rel, hits$line1[i]),
            paste("compares a family name:", hits$text[i]))
          break
        }
      }
    }
    # switch(x, gaussian = ...): a case named by a family
    for (i in seq_len(nrow(sw))) {
      call_id <- parent_of[[as.character(parent_of[[as.character(sw$id[i])]])]]
      if (!grepl("^switch\\(\\s*[^,]*fam", text_of(call_id))) next
      cases <- kid(call_id)
      bad <- cases[cases$token == "SYMBOL_SUB" & cases$text %in% family_names, ]
      for (j in seq_len(nrow(bad)))
        out[[length(out) + 1L]] <- violation(
          "family_branch", sprintf("%s:%d", f$rel, bad$line1[j]),
          paste("a switch() case named by a family:", bad$text[j]))
    }
  }
  do.call(rbind, c(list(none()), out))
}

# Calls of the named functions, reported per enclosing function.
call_sites <- function(tree, rule, names, skip_files = character()) {
  out <- list()
  for (f in tree) {
    if (f$rel %in% skip_files) next
    cl <- f$calls
    hit <- cl$name %in% names & cl$pkg %in% c("", "stats", "dpsco")
    for (i in which(hit))
      out[[length(out) + 1L]] <- violation(
        rule, paste0(f$rel, ":", function_at(f$fns, cl$line[i])),
        sprintf("%s() at line %d", cl$name[i], cl$line[i]))
  }
  v <- do.call(rbind, c(list(none()), out))
  # one entry per enclosing function, its lines in the detail
  if (!nrow(v)) return(v)
  agg <- tapply(v$detail, v$site, paste, collapse = ", ")
  violation(rule, names(agg), unname(agg))
}

rule_is_sharded <- function(tree) call_sites(tree, "is_sharded", "is_sharded")

rule_noise <- function(tree) {
  tree <- tree[names(tree) != "R/release.R"]
  v <- call_sites(tree, "noise", noise_calls)
  # the secure generator's .Call entries are symbols, not calls
  out <- list(v)
  for (f in tree) {
    pd <- f$pd
    s <- pd[pd$token == "SYMBOL" & pd$text %in% secure_calls, ]
    for (i in seq_len(nrow(s)))
      out[[length(out) + 1L]] <- violation(
        "noise", paste0(f$rel, ":", function_at(f$fns, s$line1[i])),
        sprintf("%s at line %d", s$text[i], s$line1[i]))
  }
  v <- do.call(rbind, out)
  if (!nrow(v)) return(v)
  agg <- tapply(v$detail, v$site, paste, collapse = ", ")
  violation("noise", names(agg), unname(agg))
}

# An exported function that reads data enters the fit's stream
# (local_fit_stream(), R/rng.R), which opens the ledger of its releases;
# it must hold its record against that ledger (check_releases(),
# R/release.R) before it returns.
rule_ledger <- function(tree) {
  out <- list()
  for (f in tree) {
    cl <- f$calls
    opens <- unique(vapply(cl$line[cl$name == "local_fit_stream"],
                           function(l) function_at(f$fns, l), ""))
    checks <- unique(vapply(cl$line[cl$name == "check_releases"],
                            function(l) function_at(f$fns, l), ""))
    for (fn in setdiff(opens, c(checks, "local_fit_stream")))
      out[[length(out) + 1L]] <- violation(
        "ledger", paste0(f$rel, ":", fn),
        "enters the fit's stream but does not call check_releases()")
  }
  do.call(rbind, c(list(none()), out))
}

# The fields a family constructor sets against the field table:
# family_fields(), defined in an R/family*.R file, returns a list whose
# names are the fields.
rule_family_field <- function(tree) {
  table_fields <- NULL
  for (f in tree[grepl("^R/family", names(tree))]) {
    if (!"family_fields" %in% f$fns$name) next
    env <- new.env()
    for (e in f$exprs) if (is.call(e) && identical(e[[1L]], as.name("<-"))) eval(e, env)
    table_fields <- tryCatch(names(env$family_fields()), error = function(err) NULL)
  }
  if (is.null(table_fields)) return(none())
  out <- list()
  for (f in tree) {
    pd <- f$pd
    nf <- pd[pd$token == "SYMBOL_FUNCTION_CALL" & pd$text == "new_family", ]
    if (!nrow(nf)) next
    parent_of <- stats::setNames(pd$parent, pd$id)
    kid <- children_of(pd)
    for (i in seq_len(nrow(nf))) {
      call_id <- parent_of[[as.character(parent_of[[as.character(nf$id[i])]])]]
      args <- kid(call_id)
      set <- args$text[args$token == "SYMBOL_SUB"]
      for (a in setdiff(set, table_fields))
        out[[length(out) + 1L]] <- violation(
          "family_field", sprintf("%s:%d", f$rel, nf$line1[i]),
          paste("new_family() sets a field the table does not list:", a))
    }
  }
  do.call(rbind, c(list(none()), out))
}

# A room: a file R/x.R with its parts R/x-*.R (R/family.R with its field
# table and constructors, R/settings.R with its releases, R/cv.R with its
# methods); calls among a room's files are not pairs.
rooms <- function(files) {
  base <- sub("^R/([^-]+)(-.*)?[.][Rr]$", "\\1", files)
  has_main <- paste0("R/", base, ".R") %in% files
  parts <- ave(files, base, FUN = length) > 1
  ifelse(has_main & parts, paste0("R/", base, "*.R"), files)
}

rule_mutual <- function(tree) {
  room <- stats::setNames(rooms(names(tree)), names(tree))
  defs <- do.call(rbind, lapply(tree, function(f)
    if (nrow(f$fns)) data.frame(name = f$fns$name, file = f$rel) else NULL))
  owner <- stats::setNames(defs$file, defs$name)
  uses <- lapply(tree, function(f) {
    cl <- f$calls[f$calls$pkg %in% c("", "dpsco"), ]
    u <- unique(owner[intersect(cl$name, names(owner))])
    u[room[u] != room[[f$rel]]]
  })
  out <- list()
  files <- names(uses)
  for (a in files) for (b in uses[[a]])
    if (a < b && a %in% uses[[b]])
      out[[length(out) + 1L]] <- violation("mutual", paste(a, b),
                                           "each calls a function of the other")
  do.call(rbind, c(list(none()), out))
}

rule_internal <- function(root) {
  files <- list.files(file.path(root, "tests"), pattern = "[.][Rr]$",
                      recursive = TRUE, full.names = TRUE)
  files <- files[basename(files) != "helper-internal.R"]
  out <- list()
  for (p in files) {
    l <- readLines(p, warn = FALSE)
    k <- grep("dpsco:::", l, fixed = TRUE)
    for (i in k)
      out[[length(out) + 1L]] <- violation(
        "internal", sprintf("%s:%d", sub(paste0("^", root, "/"), "", p), i),
        "dpsco::: outside the facade tests/testthat/helper-internal.R")
  }
  do.call(rbind, c(list(none()), out))
}

all_rules <- function(root) {
  tree <- read_tree(root)
  rbind(rule_long_function(tree), rule_long_file(tree),
        rule_family_branch(tree), rule_is_sharded(tree), rule_noise(tree),
        rule_family_field(tree), rule_mutual(tree), rule_internal(root),
        rule_ledger(tree))
}

read_allowed <- function(root) {
  p <- file.path(root, "tools", "structure-allowed.txt")
  if (!file.exists(p)) return(data.frame(rule = character(), site = character()))
  l <- sub("\\s+#\\s.*$", "", readLines(p, warn = FALSE))
  l <- trimws(l[!grepl("^\\s*(#|$)", l)])
  l <- l[nzchar(l)]
  data.frame(rule = sub("\\s.*$", "", l), site = sub("^\\S+\\s+", "", l),
             stringsAsFactors = FALSE)
}

# Violations not on the list, and list entries that match none.
verdict <- function(root) {
  v <- all_rules(root)
  a <- read_allowed(root)
  key_v <- paste(v$rule, v$site)
  key_a <- paste(a$rule, a$site)
  list(all = v, bad = v[!key_v %in% key_a, ], stale = a[!key_a %in% key_v, ])
}

counts <- function(v) {
  rules <- c("long_function", "long_file", "family_branch", "is_sharded",
             "noise", "family_field", "mutual", "internal", "ledger")
  stats::setNames(vapply(rules, function(r) sum(v$rule == r), 0L), rules)
}

# ---------------------------------------------------------------------------
# Self-test: a scratch tree with one planted violation per rule.

self_test <- function() {
  plant <- list(
    long_function = list("R/a.R", c("f <- function() {",
                                    rep("  x <- 1", 100), "}")),
    long_file = list("R/a.R", c("f <- function() 1", rep("x <- 1", 600))),
    family_branch = list("R/a.R", 'f <- function(fam) if (fam$name == "poisson") 1'),
    family_branch = list("R/a.R", 'f <- function(fam) fam$name %in% c("binomial", "x")'),
    family_branch = list("R/a.R", 'f <- function(fam) switch(fam$name, gaussian = 1, 2)'),
    is_sharded = list("R/a.R", "f <- function(x) if (is_sharded(x)) 1"),
    noise = list("R/a.R", "f <- function(v) v + stats::rnorm(length(v))"),
    noise = list("R/a.R", "f <- function(v) .Call(C_dpsco_secure_noise, v, 1, 0)"),
    family_field = list("R/family-fields.R", c(
      "family_fields <- function() list(name = 1, label = 1)",
      'g <- function() new_family("gaussian", label = "g", colour = "red")')),
    mutual = list(c("R/a.R", "R/b.R"), list("f <- function() g()",
                                            "g <- function() f()")),
    internal = list("tests/testthat/test-a.R", "x <- dpsco:::f()"),
    ledger = list("R/a.R", c("f <- function(x) {", "  local_fit_stream()",
                             "  x + 1", "}")))
  failures <- 0L
  for (k in seq_along(plant)) {
    rule <- names(plant)[k]
    root <- tempfile("structure")
    dir.create(file.path(root, "R"), recursive = TRUE)
    dir.create(file.path(root, "tests", "testthat"), recursive = TRUE)
    dir.create(file.path(root, "tools"))
    writeLines("ok <- function() 1", file.path(root, "R", "ok.R"))
    where <- plant[[k]][[1L]]
    what <- plant[[k]][[2L]]
    if (length(where) == 1L) what <- list(what)
    for (i in seq_along(where)) writeLines(what[[i]], file.path(root, where[i]))
    got <- verdict(root)$bad
    caught <- rule %in% got$rule
    cat(sprintf("  self-test %-14s %s\n", rule,
                if (caught) "caught" else "NOT CAUGHT"))
    if (!caught) failures <- failures + 1L
    unlink(root, recursive = TRUE)
  }
  # a clean tree passes, and a stale allowed entry fails
  root <- tempfile("structure")
  dir.create(file.path(root, "R"), recursive = TRUE)
  dir.create(file.path(root, "tools"))
  writeLines(c('f <- function(family = "gaussian") g(family)',
               "g <- function(x) x",
               'h <- function(kernel) switch(kernel, gaussian = 1, 2)',
               'k <- function(smoother) smoother == "gaussian"'),
             file.path(root, "R", "a.R"))
  clean <- nrow(verdict(root)$bad) == 0L
  writeLines("noise R/a.R:f", file.path(root, "tools", "structure-allowed.txt"))
  stale <- nrow(verdict(root)$stale) == 1L
  cat(sprintf("  self-test %-14s %s\n", "clean tree", if (clean) "passes" else "FAILS"))
  cat(sprintf("  self-test %-14s %s\n", "stale entry", if (stale) "caught" else "NOT CAUGHT"))
  unlink(root, recursive = TRUE)
  failures + (!clean) + (!stale)
}

# ---------------------------------------------------------------------------

main <- function(args) {
  root <- "."
  if ("--self-test" %in% args) {
    cat("structure: self-test of each rule on a planted violation\n")
    bad <- self_test()
    if (bad) {
      cat("structure: FAILED: the self-test missed", bad, "case(s)\n")
      quit(status = 1)
    }
    return(invisible())
  }
  v <- verdict(root)
  if ("--list" %in% args) {
    a <- v$all[order(v$all$rule, v$all$site), ]
    cat(sprintf("%s %s\n", a$rule, a$site), sep = "")
    return(invisible())
  }
  n <- counts(v$all)
  cat("structure: violations by rule (allowed exceptions included):\n")
  cat(sprintf("  %-14s %d\n", names(n), n), sep = "")
  if ("--counts" %in% args) {
    if (nrow(v$all)) print(v$all[, c("rule", "site", "detail")], row.names = FALSE)
    return(invisible())
  }
  ok <- TRUE
  if (nrow(v$bad)) {
    cat("structure: FAILED: violations not on tools/structure-allowed.txt:\n")
    for (i in seq_len(nrow(v$bad)))
      cat(sprintf("  %s %s  (%s)\n", v$bad$rule[i], v$bad$site[i], v$bad$detail[i]))
    ok <- FALSE
  }
  if (nrow(v$stale)) {
    cat("structure: FAILED: entries of tools/structure-allowed.txt that match",
        "no violation (remove them):\n")
    for (i in seq_len(nrow(v$stale)))
      cat(sprintf("  %s %s\n", v$stale$rule[i], v$stale$site[i]))
    ok <- FALSE
  }
  if (!ok) quit(status = 1)
  cat("structure: ok\n")
}

main(commandArgs(TRUE))
