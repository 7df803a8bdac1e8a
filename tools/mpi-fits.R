# The coordinator of the MPI tests in test-shards.R, run there as its own
# R process:
#
#   Rscript --vanilla mpi-fits.R JOBS.rds RESULT.rds
#
# It starts a two-worker MPI cluster (snow::makeMPIcluster(): Rmpi spawns
# the workers), fits each job of JOBS.rds on shards held by the workers and
# saves the fits, with what the cluster was, to RESULT.rds; the test fits
# the same jobs in one process and compares.  A process of its own because
# Rmpi's mpi.send.Robj() runs a full gc() after every message, whose cost
# grows with the sender's heap: in the test process (testthat, Matrix,
# bigmemory loaded) that was 0.3-0.5 s per message on the 2-core CI
# machine, in this lean one about a fifth of that.  Any error exits non-zero.
#
# A job: list(x = , y = , parts = list of row indices per worker,
# layout = "dense" | "sparse" | "file", fun = "dpsco" | "cv.dpsco",
# args = list of arguments, seed = , records = NULL or list(weights = ,
# offset = ), per-record vectors that each worker's load() returns its
# rows of).  The workers also run a full gc()
# per message (their replies), which costs more the more they have loaded:
# with Matrix loaded (sparse shards) about 0.8 s per step here.

args <- commandArgs(trailingOnly = TRUE)
stopifnot(length(args) == 2L)
jobs <- readRDS(args[[1L]])
suppressPackageStartupMessages(library(dpsco))

cl <- snow::makeMPIcluster(2L)
ranks <- Rmpi::mpi.comm.size(cl[[1L]]$comm)  # the master and the workers
# the workers load dpsco from this process's libraries
libs <- .libPaths()
pids <- unlist(parallel::clusterCall(cl, function(libs) {
  .libPaths(libs)
  suppressPackageStartupMessages(library(dpsco))
  Sys.getpid()
}, libs))

# snow::stopCluster() ends a spawned cluster with MPI_Comm_disconnect(),
# which never returns with Debian's Open MPI 4.1 and PMIx 4 (the master and
# both workers wait in PMIx_Fence()).  So each worker frees its side of
# the communicator, finalises MPI and quits, unasked for a reply, and the
# master frees its side and finalises at the end.
stop_mpi_cluster <- function(cl) {
  for (node in cl)
    snow:::sendCall(node, function() {
      Rmpi::mpi.comm.free(1)
      Rmpi::mpi.finalize()
      quit(save = "no", status = 0)
    }, list(), return = FALSE)
  Rmpi::mpi.comm.free(cl[[1L]]$comm)
  snow::setMPIcluster(NULL)
}

dir <- tempfile("mpi-shards")
dir.create(dir)

# load(i) for a job, as the socket tests build it
loader <- function(job, name) {
  x <- job$x
  y <- job$y
  parts <- job$parts
  records <- job$records
  # the shard's rows of the per-record vectors
  own <- function(i) lapply(records, function(v) v[parts[[i]]])
  if (job$layout == "file") {
    desc <- character(length(parts))
    for (i in seq_along(parts)) {
      base <- paste0(name, "-", i)
      bigmemory::as.big.matrix(x[parts[[i]], , drop = FALSE], type = "double",
                               backingfile = paste0(base, ".bin"),
                               descriptorfile = paste0(base, ".desc"),
                               backingpath = dir)
      desc[i] <- file.path(dir, paste0(base, ".desc"))
    }
    return(function(i) c(list(x = bigmemory::attach.big.matrix(desc[i]),
                              y = y[parts[[i]]]), own(i)))
  }
  sparse <- job$layout == "sparse"
  function(i) {
    xi <- x[parts[[i]], , drop = FALSE]
    c(list(x = if (sparse) Matrix::Matrix(xi, sparse = TRUE) else xi,
           y = y[parts[[i]]]), own(i))
  }
}

fits <- list()
for (name in names(jobs)) {
  job <- jobs[[name]]
  sh <- dpsco_shards(cl, loader(job, name))
  set.seed(job$seed)
  fits[[name]] <- do.call(job$fun, c(list(sh), job$args))
}

stop_mpi_cluster(cl)
# the workers quit on their own: wait for them (at most 20 s)
alive <- function() pids[vapply(pids, function(p)
  isTRUE(tools::pskill(p, 0L)), NA)]
for (k in 1:100) {
  if (!length(alive())) break
  Sys.sleep(0.2)
}
unlink(dir, recursive = TRUE)
saveRDS(list(fits = fits, class = class(cl), ranks = ranks, pids = pids,
             master = Sys.getpid(), alive = alive()), args[[2L]])
invisible(Rmpi::mpi.finalize())
