// The problems of a refused save, put where they belong: on the page, group or field their
// path names ("pages.1.groups.0.fields.2.key"), on the webform's name, or in a general list.

const PATH = /^pages\.(\d+)(?:\.groups\.(\d+))?(?:\.fields\.(\d+))?(?:\.(.+))?$/;

// ``sent`` is the uids of what was posted, page by page (model.sentShape()), so that a path
// finds its item even if the list changed since.
export function applyProblems(model, problems, sent) {
  for (const item of [...model.pages, ...model.allKeyed()]) item.errors = {};
  model.problems = [];
  model.nameError = "";
  for (const problem of problems) {
    const match = PATH.exec(problem.property);
    let id = null;
    if (match && sent[Number(match[1])]) {
      const page = sent[Number(match[1])];
      const group = match[2] !== undefined ? page.groups[Number(match[2])] : null;
      const fields = group ? group.fields : page.fields;
      id = match[3] !== undefined ? fields[Number(match[3])] : group ? group.uid : page.uid;
    }
    const found = id && model.find(id);
    if (found) {
      // Under the rest of the path ("validation.max"): the panel shows it by that setting.
      const rest = match[4] || "";
      const errors = found.item.errors;
      errors[rest] = errors[rest] ? `${errors[rest]} ${problem.message}` : problem.message;
    } else if (problem.property === "name") {
      model.nameError = problem.message;
    } else {
      model.problems.push(problem);
    }
  }
  model.changed({ structural: true, dirty: false, selection: true });
}

// Every page, group or field with a problem, in order: [{uid, item, kind, messages}].
export function itemsWithProblems(model) {
  return model.pages
    .flatMap((page) => [page, ...page.fields, ...page.groups.flatMap((g) => [g, ...g.fields])])
    .filter((item) => Object.keys(item.errors).length)
    .map((item) => ({
      uid: item.uid,
      item,
      kind: model.find(item.uid).kind,
      messages: Object.values(item.errors),
    }));
}
