# Verdict on a valgrind memcheck log of an R session (`make valgrind`):
#
#   awk -v src=/path/to/dpsco/src/ -f tools/valgrind-verdict.awk valgrind.log
#
# Fails (exit 1) on any memory error (invalid read or write, use of an
# uninitialised value, bad free: the "ERROR SUMMARY" count, run with
# --errors-for-leak-kinds=none so that leaks are not counted there) and on
# any "definitely lost" block allocated with dpsco's code on the stack: a
# frame in a file under the directory `src` (valgrind run with
# --fullpath-after= to print full source paths) or in dpsco.so.  Everything
# else that is not freed at exit belongs to R or to other packages: R keeps
# its heap until the process ends by design ("still reachable"), and
# threads or caches of other packages show up as "possibly lost"; those are
# listed in the totals but are not failures.
function endrecord() {
  if (inrec && ours) { nours++; bytes_ours += recbytes; print rec }
  inrec = 0; ours = 0; rec = ""
}
{ line = $0; sub(/^==[0-9]+== ?/, "", line) }
/are definitely lost in loss record/ {
  endrecord(); inrec = 1; recbytes = line; sub(/ .*/, "", recbytes)
  gsub(/,/, "", recbytes); rec = $0; next
}
inrec && line ~ /^ +(at|by) / {
  rec = rec "\n" $0
  if (index(line, "(" src) || line ~ /dpsco\.so/) ours = 1
  next
}
inrec { endrecord() }
/ERROR SUMMARY:/ { errors = $4; gsub(/,/, "", errors) }
/definitely lost:/ { total = line; sub(/^ *definitely lost: */, "", total) }
END {
  endrecord()
  if (errors == "") { print "valgrind: no ERROR SUMMARY in the log (did valgrind run?)"; exit 1 }
  printf "valgrind: %d errors; definitely lost in all: %s; from dpsco: %d bytes in %d records\n",
         errors, (total == "" ? "0 bytes" : total), bytes_ours, nours
  exit (errors > 0 || nours > 0)
}
