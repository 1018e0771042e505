-- 0007: images can be queued and steered like text (issue 27). A queued
-- message carries the images attached to it, as a JSON array of file
-- states (message.FileState, kind image) naming the attachment store's
-- files; '' for none. Delivery attaches them to the user message.

ALTER TABLE queue ADD COLUMN images TEXT NOT NULL DEFAULT '';
