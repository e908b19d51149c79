import { Fragment } from "react";

/**
 * A code made of fields joined by separators (a document number "PRJ-ORG-ZZ-00-DR-A-0001", a
 * revision "P01.1"): it may break onto the next line only after a separator, never inside a field,
 * so a long number fits a phone without reading as two different codes.
 */
export function CodeText({ code }: { code: string }) {
  const fields = code.split(/(?<=[-_./])/);
  return (
    <>
      {fields.map((field, index) => (
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          <span className="whitespace-nowrap">{field}</span>
        </Fragment>
      ))}
    </>
  );
}
