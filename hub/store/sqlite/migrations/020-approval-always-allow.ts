/**
 * "Always allow this here" (issue 34): an approval keeps the allow rules its agent suggested
 * (`always_offer`, JSON: Claude Code's `permission_suggestions` that add allow rules), and whether
 * the person allowed with them (`always`), so the waiting hook hands them back.
 */
export const migration020 = `
ALTER TABLE approvals ADD COLUMN always_offer TEXT;
ALTER TABLE approvals ADD COLUMN always INTEGER NOT NULL DEFAULT 0;
`;
