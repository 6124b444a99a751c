"""Test data the tests make themselves."""

from pathlib import Path


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
