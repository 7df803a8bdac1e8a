# Installs CRAN packages that Debian's archive lacks (for `make deps`), with
# every dependency at the version their DESCRIPTION files require:
#
#   Rscript tools/install-cran.R [--dry-run] PKG...
#
# Run as root on Debian (bookworm, the distribution's R).  A package that is
# missing or older than some requirement is taken from Debian's archive
# (r-cran-<name>, apt-get install) when Debian's candidate version meets
# every requirement, otherwise built from CRAN's source into
# /usr/local/lib/R/site-library, which comes first in Debian's library path.
# install.packages() alone would not do: it installs missing dependencies
# only, never ones that are present but too old (Debian's hardhat 1.2.0
# against parsnip's hardhat >= 1.4.1).  Requirements are gathered from the
# DESCRIPTION fields CRAN publishes (Depends, Imports, LinkingTo) of each
# package to be built from CRAN; a Debian package's own dependencies are
# Debian's to resolve.  Idempotent: when every requested package is
# installed, nothing is downloaded and only the final load check runs.
# --dry-run prints the plan and changes nothing.

args <- commandArgs(trailingOnly = TRUE)
dry_run <- "--dry-run" %in% args
targets <- setdiff(args, "--dry-run")
if (!length(targets)) stop("usage: Rscript tools/install-cran.R [--dry-run] PKG...")

cran <- c(CRAN = "https://cloud.r-project.org")
site_lib <- "/usr/local/lib/R/site-library"
base_pkgs <- c("R", rownames(installed.packages(priority = "base")))

# The version R would load (first library in .libPaths()), or NULL.
installed_version <- function(p) {
  tryCatch(packageVersion(p), error = function(e) NULL)
}

# A requirement list is a data frame of op and version; all must hold.
meets <- function(v, req) {
  if (is.null(v)) return(FALSE)
  for (i in seq_len(nrow(req))) {
    if (!do.call(req$op[i], list(v, package_version(req$version[i])))) return(FALSE)
  }
  TRUE
}

# "a (>= 1.0), b" -> data frame of package, op, version (NA op: any version)
parse_deps <- function(field) {
  if (is.na(field) || !nzchar(trimws(field))) {
    return(data.frame(package = character(), op = character(), version = character()))
  }
  parts <- trimws(strsplit(gsub("\\s+", " ", field), ",")[[1]])
  parts <- parts[nzchar(parts)]
  rx <- "^([A-Za-z0-9.]+) ?(\\( ?([<>=]+) ?([^) ]+) ?\\))?$"
  if (!all(grepl(rx, parts))) stop("cannot parse dependency field: ", field)
  op <- sub(rx, "\\3", parts)
  data.frame(package = sub(rx, "\\1", parts), op = ifelse(nzchar(op), op, NA),
             version = sub(rx, "\\4", parts))
}

# CRAN's index, read only when something has to be resolved.
cran_db <- local({
  db <- NULL
  function() {
    if (is.null(db)) db <<- available.packages(repos = cran)
    db
  }
})

# Debian's candidate version of r-cran-<p> as an R version, or NULL.  One
# apt-cache call (about a second each) asks for every package the targets
# can reach on CRAN.  The apt lists of a fresh machine may be empty: they
# are fetched first.
debian_version <- local({
  cand <- NULL
  function(p) {
    if (is.null(cand)) cand <<- debian_candidates(targets)
    cand[[p]]
  }
})

debian_candidates <- function(targets) {
  if (!length(list.files("/var/lib/apt/lists", pattern = "_Packages"))) apt("update", "-q")
  db <- cran_db()
  reach <- tools::package_dependencies(targets, db = db, recursive = TRUE,
                                       which = c("Depends", "Imports", "LinkingTo"))
  pkgs <- setdiff(unique(c(targets, unlist(reach))), base_pkgs)
  out <- suppressWarnings(system2("apt-cache", c("policy", debian_name(pkgs)),
                                  stdout = TRUE, stderr = FALSE))
  block <- cumsum(grepl("^\\S+:$", out))
  cand <- list()
  for (b in split(out, block)) {
    name <- sub(":$", "", b[1])
    v <- sub("^\\s*Candidate:\\s*", "", grep("^\\s*Candidate:", b, value = TRUE))
    if (!length(v) || v[1] == "(none)") next
    # epoch "1:", Debian revision "-1" and repack suffix "+dfsg" dropped
    up <- sub("[+~].*$", "", sub("-[^-]*$", "", sub("^[0-9]+:", "", v[1])))
    p <- pkgs[debian_name(pkgs) == name]
    if (length(p))
      cand[[p[1]]] <- tryCatch(package_version(up), error = function(e) NULL)
  }
  cand
}
debian_name <- function(p) paste0("r-cran-", tolower(p))

apt <- function(...) {
  status <- system2("env", c("DEBIAN_FRONTEND=noninteractive", "apt-get", ...))
  if (status != 0) stop("apt-get ", paste(..., collapse = " "), " failed")
}

# Resolves every requirement: decides for each package reached "ok"
# (installed version meets all requirements), "debian" or "cran", and
# records the requirements of each CRAN build on its dependencies.  A
# decision only ever moves later in that order, so the loop ends.
plan_installs <- function(targets) {
  none <- data.frame(op = character(), version = character())
  reqs <- list()
  decision <- character()
  queue <- targets
  for (p in targets) reqs[[p]] <- none
  while (length(queue)) {
    p <- queue[1]
    queue <- queue[-1]
    req <- reqs[[p]]
    new <- if (meets(installed_version(p), req)) "ok"
           else if (meets(debian_version(p), req)) "debian"
           else "cran"
    old <- if (p %in% names(decision)) decision[[p]] else ""
    if (identical(old, new) && new != "cran") next
    db <- if (new == "cran") cran_db()
    if (new == "cran" && (!p %in% rownames(db) ||
                          !meets(package_version(db[p, "Version"]), req))) {
      stop("no CRAN version of ", p, " for this R meets ",
           paste(req$op, req$version, collapse = ", "))
    }
    decision[[p]] <- new
    # a CRAN build's own requirements are recorded once
    if (new != "cran" || identical(old, "cran")) next
    deps <- do.call(rbind, lapply(db[p, c("Depends", "Imports", "LinkingTo")],
                                  parse_deps))
    deps <- deps[!deps$package %in% base_pkgs, ]
    for (i in seq_len(nrow(deps))) {
      d <- deps$package[i]
      r <- if (is.null(reqs[[d]])) none else reqs[[d]]
      if (!is.na(deps$op[i])) r <- rbind(r, deps[i, c("op", "version")])
      reqs[[d]] <- unique(r)
      queue <- c(queue, d)
    }
  }
  list(decision = decision, reqs = reqs)
}

describe <- function(plan, which) {
  p <- names(plan$decision)[plan$decision == which]
  if (!length(p)) return("none")
  v <- if (which == "cran") cran_db()[p, "Version"] else
    vapply(p, function(q) format(debian_version(q)), "")
  paste0(p, " ", v, collapse = ", ")
}

start <- Sys.time()
plan <- plan_installs(targets)
# Debian packages first: they may bring dependencies that the CRAN builds
# need, and the plan is then made again against what is installed.
deb <- names(plan$decision)[plan$decision == "debian"]
if (length(deb)) {
  cat("install-cran: from Debian:", describe(plan, "debian"), "\n")
  if (!dry_run) {
    apt("install", "-y", "-q", "--no-install-recommends", debian_name(deb))
    plan <- plan_installs(targets)
  }
}
src <- names(plan$decision)[plan$decision == "cran"]
if (length(src)) {
  cat("install-cran: from CRAN source:", describe(plan, "cran"), "\n")
  if (!dry_run) {
    dir.create(site_lib, recursive = TRUE, showWarnings = FALSE)
    # install.packages() builds the set in dependency order; a failed build
    # is only a warning there, so the versions are checked below.
    install.packages(src, lib = site_lib, repos = cran, dependencies = FALSE,
                     Ncpus = max(1L, parallel::detectCores()), quiet = TRUE)
  }
}
if (!dry_run) {
  for (p in names(plan$reqs)) {
    if (plan$decision[[p]] != "ok" && !meets(installed_version(p), plan$reqs[[p]])) {
      stop("install-cran: ", p, " is not at the required version after installing")
    }
  }
  # loadNamespace() also checks the versions each package imports.
  for (p in targets) loadNamespace(p)
}
cat(sprintf("install-cran: %s %s (%.0f s)\n", paste(targets, collapse = ", "),
            if (dry_run) "planned" else "installed and loading",
            as.numeric(difftime(Sys.time(), start, units = "secs"))))
