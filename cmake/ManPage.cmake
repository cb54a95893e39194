# Script mode: writes gpuconform(1) from the executable's own --help text, so the man page and
# --help never disagree. Called with -DEXE=... -DOUT=... -DVERSION=...
# Paths are the Debian packages' (prefix /usr), the layout the page ships in.
set(_subcommands run list version profile selftest render matrix diff)
execute_process(COMMAND ${EXE} --help OUTPUT_VARIABLE _top RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --help failed (${_rc})")
endif()
function(roff_block text out_var)
  # CLI11 prints the path it was started by; the page names the installed command.
  string(REPLACE "${EXE}" "gpuconform" text "${text}")
  # Preformatted: escape backslashes, and keep lines that start with . or ' from being requests.
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} ".nf\n${text}.fi\n" PARENT_SCOPE)
endfunction()
# Running text: backslashes escaped, and every - a minus (options), as man-pages(7) asks.
function(roff_text text out_var)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

string(TIMESTAMP _date "%Y-%m-%d" UTC)
roff_block("${_top}" _top_roff)
set(_page ".TH GPUCONFORM 1 \"${_date}\" \"gpuconform ${VERSION}\" \"User Commands\"\n")
# Names of variables, files and options must not be hyphenated at a line's end.
string(APPEND _page ".nh\n")
string(APPEND _page ".SH NAME\ngpuconform \\- conformance checks for GPU software installs (CUDA, ROCm/HIP)\n")
string(APPEND _page ".SH SYNOPSIS\n.B gpuconform\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n")
string(APPEND _page ".SH DESCRIPTION\n${_top_roff}")
string(APPEND _page ".SH COMMANDS\n")
set(_exit "")
foreach(sub IN LISTS _subcommands)
  execute_process(COMMAND ${EXE} ${sub} --help OUTPUT_VARIABLE _text RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${EXE} ${sub} --help failed (${_rc})")
  endif()
  roff_block("${_text}" _roff)
  string(APPEND _page ".SS gpuconform ${sub}\n${_roff}")
  # EXIT STATUS is each command's own "Exit status:" line from its --help.
  if(_text MATCHES "Exit status: ([^\n]*)")
    roff_text("${CMAKE_MATCH_1}" _codes)
  elseif(sub STREQUAL "run")
    message(FATAL_ERROR "${EXE} run --help says no exit status")
  else()
    set(_codes "0, or 2 for bad usage.")
  endif()
  string(APPEND _exit ".TP\n.B gpuconform ${sub}\n${_codes}\n")
endforeach()
string(APPEND _page ".SH EXIT STATUS\nAn unknown command or option is exit 2 for every command.\n${_exit}")

string(APPEND _page [=[
.SH ENVIRONMENT
.TP
.B GPUCONFORM_PYTHON
The Python that runs the framework layer when \fB\-\-python\fR is not given. Without either,
the first \fBpython3\fR on \fBPATH\fR that has pytest and torch, else the system's
/usr/bin/python3.
.TP
.B GPUCONFORM_MODULE_DIR
The one folder backend modules (libgpuconform\-cuda.so, libgpuconform\-hip.so,
libgpuconform\-sim.so) are loaded from, instead of the installed /usr/lib/*/gpuconform/.
A value that is not a folder is exit 2.
.TP
.B GPUCONFORM_CACHE_DIR
Where the compile probes keep their last pass, reused while the toolchain is unchanged; \fBoff\fR
compiles every time. Default: $CACHE_DIRECTORY (the service's /var/cache/gpuconform), else
$XDG_CACHE_HOME/gpuconform, else ~/.cache/gpuconform.
.TP
.B NO_COLOR
Set to a non\-empty value: no colour in the terminal views.
.TP
\fBCUDA_VISIBLE_DEVICES\fR, \fBHIP_VISIBLE_DEVICES\fR, \fBROCR_VISIBLE_DEVICES\fR, \fBNVIDIA_VISIBLE_DEVICES\fR, \fBGPU_DEVICE_ORDINAL\fR
Decide which GPUs the runtimes show, as for any program. The run records them in the report
(environment.env) and names one that hides GPUs on the PCI bus as the cause of the results it
explains.
.TP
\fBCUDA_LAUNCH_BLOCKING\fR, \fBCUDA_DEVICE_MAX_CONNECTIONS\fR, \fBCUDA_MODULE_LOADING\fR, \fBLD_PRELOAD\fR, \fBPYTORCH_CUDA_ALLOC_CONF\fR and others
Variables that change how the GPU runtimes behave: \fBhost.env\fR reports each one set, and a
failing result one of them can explain names it with the fix.
.TP
.B PATH
Where nvcc, hipcc, the host compiler and python3 are looked for.
.TP
.B CXX
A host compiler the CUDA compile probe also tries (nvcc \-ccbin).
.TP
.B TMPDIR
Where scratch folders are made (the compile probe, the framework layer), else /tmp.
.TP
.B KUBERNETES_SERVICE_HOST
Set inside a Kubernetes pod; the report's environment.container says so.
.SH FILES
.TP
/etc/gpuconform/options
Options of the nightly run (gpuconform.service, gpuconform.timer).
.TP
/etc/gpuconform/profile.yaml
The operator's expectations, layered over the built\-in profile.
.TP
/usr/share/gpuconform/profiles/default.yaml
The built\-in expectations, as compiled into the executable.
.TP
/usr/share/gpuconform/schema/report\-v1.schema.json
The report format (JSON Schema), the contract for every reader of a report.
.TP
/usr/lib/*/gpuconform/
Backend modules: sim (this package), cuda (gpuconform\-cuda), hip (gpuconform\-hip).
.TP
/usr/share/gpuconform/python_tests/
The framework layer's pytest checks (gpuconform\-torch).
.TP
/var/lib/gpuconform/
Nightly reports (removed after 60 days by systemd\-tmpfiles).
.TP
/var/cache/gpuconform/
The compile probes' last pass, kept by the service (see GPUCONFORM_CACHE_DIR).
.TP
/var/lib/prometheus/node\-exporter/gpuconform.prom
The last nightly run for node exporter's textfile collector.
.SH EXAMPLES
.TP
.B gpuconform run
Every layer on every GPU; the report is gpuconform\-\fIHOST\fR\-\fIUTC\fR.json in the current folder.
.TP
.B gpuconform run \-\-quick \-\-profile /etc/gpuconform/profile.yaml \-\-quiet
What the nightly service runs (/etc/gpuconform/options): fewer sizes and repetitions, the
operator's expectations, only what needs attention printed.
.TP
.B gpuconform run \-\-layer host,runtime \-\-json now.json
No GPU work: the host's facts and what each runtime reports, in seconds.
.TP
.B gpuconform run \-\-only \(aqasync.copy.*\(aq \-\-repeat 5 \-\-json after.json
The copy checks five times over, folded into one result each, for a diff with noise to judge by.
.TP
.B gpuconform diff before.json after.json
What changed between two runs (before and after an upgrade, say): exit 1 when something regressed.
Given two folders (two nights of a fleet), each host is compared with itself; a host that
regressed or vanished is named.
.TP
.B gpuconform matrix /var/lib/gpuconform/ \-f html \-o fleet.html
Every report under a folder as one page: a verdict per node, checks by distribution and GPU.
.TP
.B gpuconform render \-f timings now.json
Where one run's time went.
.TP
.B gpuconform render \-f verdict now.json
The run's verdict (pass, fail, inconclusive) as one JSON object, for scripts: what the Slurm and
Kubernetes glue read.
.TP
.B gpuconform profile \-\-profile /etc/gpuconform/profile.yaml
Checks an edited profile (exit 2 with file, line and field) and prints what the run would use.
.TP
.B gpuconform selftest
Proves on the simulated backend that every device check catches its fault.
.SH SEE ALSO
.BR nvidia\-smi (1),
.BR slurm.conf (5),
.BR systemd.timer (5),
.BR tmpfiles.d (5)
.PP
The report format and the built\-in expectations under /usr/share/gpuconform/ (see FILES), and
/usr/share/doc/gpuconform/copyright.
]=])
file(WRITE ${OUT} "${_page}")
