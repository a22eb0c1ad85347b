/**
 * The project contract tests declare most: `projectType: urls`, scraping the books list page, scheduling off. Its
 * manifest, and the same project as a list (or a read by id) shows it, so a plan finds it unchanged.
 */
export function booksProjectYaml(name: string): string {
  return `kind: Project\nname: ${name}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\n`;
}

export function liveBooksProject(id: number, name: string) {
  return {
    id,
    name,
    schedulingEnabled: false,
    projectType: 'urls',
    projectInput: { type: 'list', list: ['https://books.example/'] },
  };
}
