/**
 * The person loop: a pending approval keeps when its waiter gives up (`expires_at`, the hub's
 * clock; NULL when nobody waits on it), so the page shows the time left and a boot or sweep can end
 * one whose waiter is long gone; an approval keeps the label of the token that decided it, as it
 * was then (`decided_by_label`); a stored token gets an optional `label` a person gave it, shown
 * where its id would be. Rows stored before have NULL in each.
 */
export const migration013 = `
ALTER TABLE approvals ADD COLUMN expires_at INTEGER;
ALTER TABLE approvals ADD COLUMN decided_by_label TEXT;
ALTER TABLE tokens ADD COLUMN label TEXT;
`;
