package nginxconf

// For the external tests (nginxconf_test), which run hdig's commands.
var (
	StartNginx = nginx
	IndexTree  = runIndex
	WriteTree  = writeTree
)
