// `pnpm start`: the local cluster launcher (apiserver + job controller + scheduler + node agent,
// kubeconfig in .skiff/kubeconfig). The apiserver and node agent are not built yet, so this says
// so plainly instead of pretending.
console.error(
  [
    "skiff: the local cluster is not available yet.",
    "The foundation packages are built; the apiserver (issue 3), controllers (issue 5) and",
    "node agent (issues 6, 7) come next. Run `pnpm test` to check what exists.",
  ].join("\n"),
);
process.exit(1);
