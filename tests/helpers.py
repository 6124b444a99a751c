"""Test data the tests make themselves, and where the shared real data is."""

import os
from pathlib import Path

CHECKOUT = Path(__file__).absolute().parent.parent  # as the path was given (CI may reach it through a link)
SHARED_ENV = "RAGCHAIN_SHARED_DATA"


def shared_data_places() -> list[Path]:
    """Where ../shared/data may be, first match wins: $RAGCHAIN_SHARED_DATA, then beside the checkout
    as CI lays it out (<clone>/../shared/data), by the path as given and as resolved, and beside the
    folder pytest was started from."""
    places = [Path(os.environ[SHARED_ENV])] if os.environ.get(SHARED_ENV) else []
    for root in (CHECKOUT, CHECKOUT.resolve(), Path(os.environ.get("PWD", os.getcwd())), Path.cwd()):
        places.append(root.parent / "shared" / "data")
    return list(dict.fromkeys(places))


def shared_file(relative: str) -> Path | None:
    """A file of the shared data, or None when no place holds it (shared_missing says where we looked)."""
    return next((place / relative for place in shared_data_places() if (place / relative).is_file()), None)


def shared_missing(relative: str) -> str:
    places = ", ".join(str(place) for place in shared_data_places())
    return f"the shared data file {relative} is in none of: {places} (set {SHARED_ENV} to the shared/data folder)"


def make_pdf(path: Path, pages: list[str], title="Test PDF", encrypt_password: str = "") -> Path:
    import pymupdf

    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_text((72, 72), text, fontsize=12)
    doc.set_metadata({"title": title, "creationDate": "D:20230405060708"})
    kwargs = {}
    if encrypt_password:
        kwargs = dict(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw=encrypt_password, owner_pw=encrypt_password)
    doc.save(str(path), **kwargs)
    doc.close()
    return path
