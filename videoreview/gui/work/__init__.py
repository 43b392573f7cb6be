"""Work off the GUI thread and its plumbing: which kind of work goes where (background.py),
the analysis queue and its news (jobs, queue events, the status bar's view of it), the jobs
that load a model for the Summaries panel, the frame decoders (thumbnails, stills) and
their image cache, the library service's client and the team library's listener. Results
reach the GUI thread only as queued signals. Nothing here imports the picture's widgets
(video/) or the dialogs: they use this package, not the other way round."""
